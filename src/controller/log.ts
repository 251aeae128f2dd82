// Structured logs for the controller: `--log-format text` for a terminal, `json` for a
// log pipeline. One line per entry on stderr; debug lines only with -v. Nothing here
// ever sees a request's headers, so tokens cannot reach a log.
export type LogFormat = 'text' | 'json';
type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export const LOG_FORMATS: readonly LogFormat[] = ['text', 'json'];

export type Logger = (level: LogLevel, message: string, fields?: Record<string, unknown>) => void;

export function createLogger(
  format: LogFormat,
  verbose: boolean,
  write: (line: string) => void = (line) => process.stderr.write(line),
  now: () => Date = () => new Date(),
): Logger {
  return (level, message, fields = {}) => {
    if (level === 'debug' && !verbose) return;
    const ts = now().toISOString();
    if (format === 'json') {
      write(`${JSON.stringify({ ts, level, msg: message, ...fields })}\n`);
      return;
    }
    const rest = Object.entries(fields)
      .map(
        ([key, value]) =>
          `${key}=${typeof value === 'string' && !/[\s"=]/.test(value) ? value : JSON.stringify(value)}`,
      )
      .join(' ');
    write(`${ts} ${level.toUpperCase().padEnd(5)} ${message}${rest ? ` ${rest}` : ''}\n`);
  };
}
