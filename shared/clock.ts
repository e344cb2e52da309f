// One clock for the service, so tests can pin "now".
let fixed: Date | undefined;

export const now = (): Date => (fixed ? new Date(fixed) : new Date());
export const nowIso = (): string => now().toISOString();

export const setClock = (date: Date | undefined) => {
  fixed = date;
};
