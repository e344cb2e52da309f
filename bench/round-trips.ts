// 3. Round trips: every route with a handler, invoked once on its sample event over the demo data
// set; DynamoDB and S3 requests counted by SDK middlewares, and their sequential waves.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { invoke } from '../infra/local/handlers.ts';
import { type Route, routes } from '../infra/routes.ts';
import { recordDynamoRequests, recordS3Requests, wavesOf } from '../test/support/aws-requests.ts';
import { startLocal } from './lib/local.ts';
import { ROOT } from './lib/paths.ts';
import { type Benchmark, type Figure, NOT_AVAILABLE } from './lib/types.ts';

export interface RoundTrip {
  route: string;
  status: number;
  dynamodb: number;
  dynamodbWaves: number;
  s3: number;
  waves: number;
  commands: string[];
}

const isRead = (route: Route) => route.method === 'GET';

export const roundTripsBenchmark: Benchmark = {
  name: 'round-trips',
  title: 'Round trips per endpoint (seed data)',
  async run() {
    const local = await startLocal();
    const figures: Figure[] = [];
    const rows: RoundTrip[] = [];
    try {
      const measure = async (route: Route): Promise<[Figure, RoundTrip?]> => {
        const name = `${route.method} ${route.path.replace('/api/v1', '')}`;
        if (!existsSync(join(ROOT, 'functions', `${route.entry}.ts`)))
          return [
            { figure: name, value: NOT_AVAILABLE, note: `functions/${route.entry}.ts does not exist yet` },
          ];
        const { event, missing } = await local.sampleEvent(route);
        if (!event || missing.length > 0)
          return [{ figure: name, value: NOT_AVAILABLE, note: `no seeded value for ${missing.join(', ')}` }];
        const dynamo = recordDynamoRequests();
        const s3 = recordS3Requests();
        let status: number;
        try {
          status = (await invoke(route, event)).statusCode ?? 200;
        } finally {
          dynamo.stop();
          s3.stop();
        }
        const row: RoundTrip = {
          route: name,
          status,
          dynamodb: dynamo.requests.length,
          dynamodbWaves: dynamo.waves(),
          s3: s3.requests.length,
          waves: wavesOf([...dynamo.requests, ...s3.requests]),
          commands: [...dynamo.commands(), ...s3.requests.map((r) => `s3:${r.command}`)],
        };
        const limit = isRead(route) ? 1 : 2;
        const answered = status < 400;
        const figure: Figure = {
          figure: name,
          value: `DynamoDB ${row.dynamodb} in ${row.dynamodbWaves} wave${row.dynamodbWaves === 1 ? '' : 's'} · S3 ${row.s3}`,
          budget: isRead(route) ? '1 DynamoDB wave' : '≤ 2 DynamoDB waves',
          // A sample event the handler refused measures nothing: no pass mark, the status says why.
          pass: answered ? row.dynamodbWaves <= limit : undefined,
          note: `${answered ? '' : `answered ${status}, not counted; `}status ${status}; all requests in ${row.waves} wave(s)`,
        };
        return [figure, row];
      };
      // Reads first, so no write (an unsubscribe, a new session) changes what they read.
      const reads = routes.filter(isRead);
      const measured = new Map<Route, [Figure, RoundTrip?]>();
      for (const route of [...reads, ...routes.filter((route) => !isRead(route))])
        measured.set(route, await measure(route));
      // A read whose sample event names what only a write makes (the avatar status reads the avatar the
      // upload trains) is refused 404 before the writes: measured again after them.
      for (const route of reads)
        if (measured.get(route)?.[1]?.status === 404) measured.set(route, await measure(route));
      for (const [figure, row] of measured.values()) {
        figures.push(figure);
        if (row) rows.push(row);
      }
    } finally {
      await local.close();
    }
    const answeredReads = rows.filter((row) => row.route.startsWith('GET') && row.status < 400);
    figures.unshift({
      figure: 'read endpoints in one DynamoDB wave',
      value: `${answeredReads.filter((row) => row.dynamodbWaves <= 1).length} of ${answeredReads.length}`,
      budget: 'all',
      pass: answeredReads.every((row) => row.dynamodbWaves <= 1),
    });
    // The counts are in the table; the details keep which commands each endpoint sent, in order.
    const details = Object.fromEntries(rows.map((row) => [row.route, row.commands.join(' ')]));
    return { figures, details };
  },
};
