// User accounts: one item per user, created on the first setting written. A user with no account
// item has every flag at its default (studio training disabled).
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../aws/dynamo.ts';
import { nowIso } from '../clock.ts';
import { config } from '../config.ts';
import { getItem } from '../db/store.ts';
import { accountKeys } from './keys.ts';

export interface AccountItem {
  kind: 'account';
  user_id: string;
  /** Studio avatar training (spec 3 precondition); granted by the operator, not by the user. */
  studio_training_enabled?: boolean;
  created_at: string;
  updated_at: string;
}

export const readAccount = (userId: string) => getItem<AccountItem>(accountKeys.account(userId));

export const studioTrainingEnabled = (account: AccountItem | undefined) =>
  account?.studio_training_enabled === true;

/** Turns studio training on or off for a user (creating the account item when there is none). */
export async function setStudioTraining(userId: string, enabled: boolean): Promise<void> {
  const at = nowIso();
  await dynamo().send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: accountKeys.account(userId),
      UpdateExpression:
        'SET studio_training_enabled = :enabled, updated_at = :at, kind = :kind, user_id = :user, created_at = if_not_exists(created_at, :at)',
      ExpressionAttributeValues: { ':enabled': enabled, ':at': at, ':kind': 'account', ':user': userId },
    }),
  );
}
