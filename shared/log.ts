// Structured JSON log lines. Callers pass only what is safe to keep: never a header, a body,
// a token or a secret. The request id ties the lines of one invocation together.
type Fields = Record<string, string | number | boolean | null | undefined>;

/** Where the current invocation's request id is kept. Lambda runs one invocation per container at a
 * time, so a module variable does; the local runtime, which runs many at once in one process, keeps
 * it per invocation instead (infra/local/invocation.ts). */
export interface RequestIdSlot {
  get(): string | undefined;
  set(id: string | undefined): void;
}

let current: string | undefined;
let slot: RequestIdSlot = {
  get: () => current,
  set: (id) => {
    current = id;
  },
};

export const keepRequestIdIn = (own: RequestIdSlot) => {
  slot = own;
};

export const setLogRequestId = (id: string | undefined) => slot.set(id);

const METHOD = { info: 'log', warn: 'warn', error: 'error' } as const;

/** LOG_LEVEL, read on every line (tests and scripts set it at run time): the least level written.
 * Case and blanks aside; unset, empty or any other value writes every line. */
const RANK: Record<string, number> = { info: 0, warn: 1, error: 2, silent: 3 };
const leastRank = () => RANK[(process.env.LOG_LEVEL ?? '').trim().toLowerCase()] ?? 0;

const write = (level: 'info' | 'warn' | 'error', message: string, fields: Fields = {}) => {
  if (RANK[level]! < leastRank()) return;
  const core = { level, time: new Date().toISOString(), requestId: slot.get(), message };
  // The line's own keys stay first and win over a caller's field of the same name.
  const entry = { ...core, ...fields, ...core };
  // Under Lambda's JSON log format the runtime wraps each console call in its own JSON object and
  // keeps a lone object argument as a structured `message`; a string would be stored escaped, its
  // fields out of Logs Insights' reach. Elsewhere (the local server) one JSON line per entry.
  console[METHOD[level]](process.env.AWS_LAMBDA_LOG_FORMAT === 'JSON' ? entry : JSON.stringify(entry));
};

export const log = {
  info: (message: string, fields?: Fields) => write('info', message, fields),
  warn: (message: string, fields?: Fields) => write('warn', message, fields),
  error: (message: string, fields?: Fields) => write('error', message, fields),
};
