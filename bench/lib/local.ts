// The embedded runtime for the benchmarks that call handlers: dynalite + s3rver in this process, a
// development signing secret, optionally the demo data set, and the sample events with their
// `{{placeholders}}` filled in (as `npm run invoke` fills them).
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { startEmbeddedAws } from '../../infra/local/embedded.ts';
import { fillPlaceholders } from '../../infra/local/runtime.ts';
import { type SeedIds, type SeedUsers, seedDemoData } from '../../infra/local/seed/index.ts';
import { signDevToken, useDevAuth } from '../../infra/local/tokens.ts';
import { eventFile, type Route } from '../../infra/routes.ts';
import { useLocalSecretsKey } from '../../shared/crypto/local-key.ts';
import { newId } from '../../shared/ids.ts';
import { ROOT } from './paths.ts';

export interface Local {
  users: SeedUsers;
  ids: SeedIds;
  tokenFor(sub: string): Promise<string>;
  /** The route's sample event, filled; `missing` lists placeholders nothing seeded a value for. */
  sampleEvent(route: Route): Promise<{ event?: APIGatewayProxyEventV2; missing: string[] }>;
  close(): Promise<void>;
}

export async function startLocal(options: { seed?: boolean } = {}): Promise<Local> {
  const aws = await startEmbeddedAws();
  const secret = randomBytes(32).toString('hex');
  useDevAuth(secret);
  useLocalSecretsKey(randomBytes(32).toString('hex'));
  const tokenFor = (sub: string) => signDevToken(secret, sub, '1h');
  const { users, ids } =
    options.seed === false ? { users: { owner: newId(), other: newId() }, ids: {} } : await seedDemoData();
  const values: Record<string, string> = {
    owner_token: await tokenFor(users.owner),
    other_token: await tokenFor(users.other),
    owner_id: users.owner,
    ...ids,
  };
  return {
    users,
    ids,
    tokenFor,
    async sampleEvent(route) {
      let text: string;
      try {
        text = await readFile(join(ROOT, eventFile(route)), 'utf8');
      } catch {
        return { missing: [eventFile(route)] };
      }
      const filled = fillPlaceholders(text, values);
      return { event: JSON.parse(filled.text) as APIGatewayProxyEventV2, missing: filled.missing };
    },
    close: () => aws.close(),
  };
}
