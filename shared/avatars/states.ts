// The training state machine: an avatar starts `training` and ends `ready` or `failed`; nothing else
// moves. Every move is a conditional write from one of the states listed here (store.ts), so a late
// or repeated provider message cannot move an avatar that has finished.
export const AVATAR_STATUSES = ['training', 'ready', 'failed'] as const;
export type AvatarStatusValue = (typeof AVATAR_STATUSES)[number];

export const TRANSITIONS: Readonly<Record<AvatarStatusValue, readonly AvatarStatusValue[]>> = {
  training: ['ready', 'failed'],
  ready: [],
  failed: [],
};

/** The states an avatar may be in for a move to `to`: empty when nothing moves there. */
export const statesBefore = (to: AvatarStatusValue): AvatarStatusValue[] =>
  AVATAR_STATUSES.filter((from) => TRANSITIONS[from].includes(to));
