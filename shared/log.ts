// Structured JSON log lines. Callers pass only what is safe to keep: never a header, a body,
// a token or a secret. The request id ties the lines of one invocation together.
type Fields = Record<string, string | number | boolean | null | undefined>;

let requestId: string | undefined;

export const setLogRequestId = (id: string | undefined) => {
  requestId = id;
};

const write = (level: 'info' | 'warn' | 'error', message: string, fields: Fields = {}) => {
  if (process.env.LOG_LEVEL === 'silent') return;
  const core = { level, time: new Date().toISOString(), requestId, message };
  // The line's own keys stay first and win over a caller's field of the same name.
  const line = JSON.stringify({ ...core, ...fields, ...core });
  if (level === 'error') console.error(line);
  else console.log(line);
};

export const log = {
  info: (message: string, fields?: Fields) => write('info', message, fields),
  warn: (message: string, fields?: Fields) => write('warn', message, fields),
  error: (message: string, fields?: Fields) => write('error', message, fields),
};
