// The port to the external avatar provider that trains studio avatars, and its adapters. Training
// runs at the provider; it reports the outcome through the signed callback (functions/avatar-provider).
import { now } from '../clock.ts';
import { log } from '../log.ts';
import { AVATAR_LIMITS } from './schemas.ts';
import { SIGNATURE_HEADER, signProviderMessage } from './signature.ts';
import { providerSigningSecret } from './signing-secret.ts';

export interface TrainingJob {
  team_id: string;
  avatar_id: string;
  /** A presigned GET of the source video, valid for `video_url_expires_at`. */
  video_url: string;
  video_content_type: string;
  video_url_expires_at: string;
}

export interface AvatarProvider {
  readonly name: string;
  /** Hands a job to the provider; resolves once the provider has accepted it. */
  startTraining(job: TrainingJob): Promise<{ jobId: string }>;
}

export class ProviderUnavailableError extends Error {
  override name = 'ProviderUnavailableError';
}

/** A provider reached over HTTPS: POST <url> with the job as JSON; any 2xx accepts it. */
export class HttpAvatarProvider implements AvatarProvider {
  readonly name = 'http';

  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
  ) {}

  async startTraining(job: TrainingJob): Promise<{ jobId: string }> {
    const body = JSON.stringify(job);
    let response: Response;
    try {
      // Signed like the provider's callbacks, with the same shared secret: the provider can tell a job
      // of ours from anyone else's POST to its endpoint.
      const secret = await providerSigningSecret();
      response = await fetch(this.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          // The avatar id makes a repeated submission of the same job recognisable to the provider.
          'idempotency-key': job.avatar_id,
          ...(secret
            ? { [SIGNATURE_HEADER]: signProviderMessage(secret, Math.floor(now().getTime() / 1000), body) }
            : {}),
        },
        body,
        // Not followed: a 301/302/303 would turn the POST into a GET of the new location, the job lost
        // and a 2xx there (a landing page) taken for acceptance. A redirect is a non-2xx answer.
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new ProviderUnavailableError(`avatar provider unreachable: ${(error as Error).name}`);
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new ProviderUnavailableError(`avatar provider answered ${response.status}`);
    }
    // The status took the job: a body cut short or stalled past the timeout leaves it taken (failing
    // the avatar here would drop the provider's report of it), under our id when it names none.
    const text = await readAtMost(response, AVATAR_LIMITS.providerAnswerBytes);
    let jobId = job.avatar_id;
    try {
      const parsed = JSON.parse(text) as { job_id?: unknown };
      // Kept on the record: bounded, as nothing else bounds what the provider answers; an empty id
      // names no job.
      const { min, max } = AVATAR_LIMITS.providerJobId;
      if (typeof parsed.job_id === 'string' && parsed.job_id.length >= min && parsed.job_id.length <= max)
        jobId = parsed.job_id;
    } catch {}
    return { jobId };
  }
}

/** The answer's first `max` bytes as text (what arrived, when it is cut short or stalls); the rest
 * is not read: nothing else bounds what the provider sends, and the function has 512 MB. */
async function readAtMost(response: Response, max: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // Cut short, or stalled past the timeout: what arrived.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, max).toString('utf8');
}

/** No provider configured (local runtime, tests, a stack deployed without one): jobs are kept in
 * memory and logged; avatars stay `training` until a signed callback reports on them. */
export class RecordingAvatarProvider implements AvatarProvider {
  readonly name = 'recording';
  readonly jobs: TrainingJob[] = [];

  async startTraining(job: TrainingJob): Promise<{ jobId: string }> {
    this.jobs.push(job);
    log.info('avatar training job recorded', { team_id: job.team_id, avatar_id: job.avatar_id });
    return { jobId: job.avatar_id };
  }
}

export const recordingProvider = new RecordingAvatarProvider();

const DEFAULT_TIMEOUT_MS = 5000;

/** The configured adapter: AVATAR_PROVIDER_URL selects the HTTP one (read at each call, so the
 * embedded runtime and the tests can switch). */
export function avatarProvider(): AvatarProvider {
  const url = process.env.AVATAR_PROVIDER_URL;
  if (!url) return recordingProvider;
  const timeout = Number(process.env.AVATAR_PROVIDER_TIMEOUT_MS ?? DEFAULT_TIMEOUT_MS);
  return new HttpAvatarProvider(url, Number.isFinite(timeout) && timeout > 0 ? timeout : DEFAULT_TIMEOUT_MS);
}
