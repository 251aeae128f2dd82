// All printing lives here: JSON, YAML, kubectl-style tables and colour.
// Machine output (json, yaml) never carries colour; progress goes to stderr.
import { Chalk, ChalkInstance } from 'chalk';
import * as yaml from 'js-yaml';

export type OutputFormat = 'table' | 'wide' | 'json' | 'yaml';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'wide', 'json', 'yaml'];

export interface Printer {
  format: OutputFormat;
  color: ChalkInstance;
  /** Writes machine output (json or yaml) of any value. */
  data(value: unknown): void;
  table(headers: string[], rows: Cell[][]): void;
  line(text: string): void;
  /** Progress and notes: stderr, so stdout stays clean for pipes. */
  progress(text: string): void;
  /** A problem that does not stop the command (one object of many failed): `error: …` on stderr. */
  error(text: string): void;
}

export interface Cell {
  text: string;
  style?: (s: string) => string;
}

export interface PrinterOptions {
  format: OutputFormat;
  colorFlag: boolean;
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
  env?: NodeJS.ProcessEnv;
}

/** Colour only on a TTY, and never with NO_COLOR or --no-color. */
export function wantsColor(colorFlag: boolean, stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return colorFlag && stream.isTTY === true && !('NO_COLOR' in env && env.NO_COLOR !== '');
}

export function createPrinter(options: PrinterOptions): Printer {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const env = options.env ?? process.env;
  const color = new Chalk({ level: wantsColor(options.colorFlag, stdout, env) ? 1 : 0 });
  const errColor = wantsColor(options.colorFlag, stderr, env);
  return {
    format: options.format,
    color,
    data(value) {
      stdout.write(options.format === 'yaml' ? toYaml(value) : toJson(value));
    },
    table(headers, rows) {
      stdout.write(formatTable(headers, rows));
    },
    line(text) {
      stdout.write(`${text}\n`);
    },
    progress(text) {
      stderr.write(`${errColor ? text : stripAnsi(text)}\n`);
    },
    error(text) {
      stderr.write(`error: ${text.replace(/\s*\n\s*/g, ' ')}\n`);
    },
  };
}

export function toJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

export function toYaml(value: unknown): string {
  return yaml.dump(value, { noRefs: true, lineWidth: -1, sortKeys: false });
}

/** Like kubectl's tabwriter: uppercase headers, columns padded with 3 spaces, no borders. */
export function formatTable(headers: string[], rows: Cell[][]): string {
  const all: Cell[][] = [headers.map((h) => ({ text: h.toUpperCase() })), ...rows];
  const widths = headers.map((_, col) => Math.max(...all.map((row) => (row[col]?.text ?? '').length)));
  return all
    .map((row) =>
      row
        .map((cell, col) => {
          const padded = col === row.length - 1 ? cell.text : cell.text.padEnd(widths[col] + 3);
          return cell.style ? cell.style(padded) : padded;
        })
        .join('')
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join('');
}

export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}

/** Colour of an action, the same everywhere: tables, the demo, progress. */
export function actionStyle(color: ChalkInstance, action: string): (s: string) => string {
  switch (action) {
    case 'create':
      return color.green;
    case 'update':
      return color.yellow;
    case 'noop':
      return color.dim;
    case 'requeue':
      return color.cyan;
    case 'conflict':
    case 'error':
      return color.red;
    case 'finalize':
      return color.magenta;
    default:
      return (s) => s;
  }
}

/** kubectl's short age: 45s, 12m, 5h, 3d. */
export function age(from: string | undefined, now: Date): string {
  if (!from) return '<unknown>';
  const seconds = Math.max(0, Math.floor((now.getTime() - Date.parse(from)) / 1000));
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 120) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h`;
  return `${Math.floor(hours / 24)}d`;
}
