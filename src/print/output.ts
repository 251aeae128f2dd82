// All printing lives here: JSON, YAML, kubectl-style tables and colour.
// Machine output (json, yaml) never carries colour; progress goes to stderr.
import { Chalk, ChalkInstance } from 'chalk';
import * as yaml from 'js-yaml';
import { UserError } from '../kube/errors';
import { customColumns, renderJsonPath } from './jsonpath';

export type OutputFormat = 'table' | 'wide' | 'json' | 'yaml' | 'name' | 'jsonpath' | 'custom-columns';
const OUTPUT_FORMATS: readonly string[] = ['wide', 'json', 'yaml', 'name', 'jsonpath', 'custom-columns'];

/** -o as typed: a format, or jsonpath=TEMPLATE / custom-columns=SPEC with what follows the "=". */
export function parseOutput(text: string): { format: OutputFormat; template?: string } {
  for (const format of ['jsonpath', 'custom-columns'] as const) {
    if (text.startsWith(`${format}=`)) return { format, template: text.slice(format.length + 1) };
  }
  if (['table', 'wide', 'json', 'yaml', 'name'].includes(text)) return { format: text as OutputFormat };
  throw new UserError(
    `unable to match a printer suitable for the output format "${text}", allowed formats are: ` +
      OUTPUT_FORMATS.join(','),
  );
}

export interface Printer {
  format: OutputFormat;
  /** The data is printed as data (json, yaml, jsonpath, custom-columns), never as our tables. */
  machine: boolean;
  color: ChalkInstance;
  /** Writes machine output (json or yaml) of any value. */
  data(value: unknown): void;
  /** Several objects: a multi-document YAML stream, or a JSON v1 List; `kubectl apply -f -` takes either. */
  documents(values: unknown[]): void;
  table(headers: string[], rows: Cell[][]): void;
  line(text: string): void;
  /** Progress and notes: stderr, so stdout stays clean for pipes. */
  progress(text: string): void;
  /** A problem that does not stop the command (one object of many failed): `error: …` on stderr. */
  error(text: string): void;
  /**
   * A `label done/total` line on stderr, rewritten in place while work goes on and cleared at
   * the end. Only on a terminal, for tables, with at least COUNTER_MIN_ITEMS to count, and
   * never under the colour opt-outs (NO_COLOR, --no-color): otherwise it does nothing.
   */
  counter(label: string, total: number): Counter;
  /** A table whose rows keep coming (status -w), in the widths its first rows set, like kubectl get -w. */
  tableStream(headers: string[], minWidths?: Record<string, number>): TableStream;
}

interface Counter {
  /** One more item done. */
  tick(): void;
  /** Clears the line; call it before printing results. */
  done(): void;
}

interface TableStream {
  /** Rows: the header goes out before the first one. */
  rows(rows: Cell[][]): void;
}

/** Fewer items finish before a counter could be read. */
export const COUNTER_MIN_ITEMS = 10;
/** Redraw at most this often: a terminal need not repaint for each of thousands of items. */
const COUNTER_INTERVAL_MS = 100;
const CLEAR_LINE = '\r\u001b[2K';

export interface Cell {
  text: string;
  style?: (s: string) => string;
}

export interface PrinterOptions {
  format: OutputFormat;
  /** jsonpath's template, custom-columns' spec. */
  template?: string;
  colorFlag: boolean;
  /** As kubectl: a NAMESPACE column only across namespaces (-A); otherwise it is dropped. */
  namespaceColumn?: boolean;
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
  const machine = ['json', 'yaml', 'jsonpath', 'custom-columns'].includes(options.format);
  /** The counter line on screen, if any: notes clear it first, and the next tick redraws it. */
  let counterShown = false;
  const toStderr = (text: string) => {
    if (counterShown) {
      stderr.write(CLEAR_LINE);
      counterShown = false;
    }
    stderr.write(text);
  };
  const withoutNamespace = (headers: string[], rows: Cell[][]): [string[], Cell[][]] =>
    options.namespaceColumn !== false || headers[0] !== 'namespace'
      ? [headers, rows]
      : [headers.slice(1), rows.map((row) => row.slice(1))];
  return {
    format: options.format,
    machine,
    color,
    data(value) {
      const template = options.template ?? '';
      if (options.format === 'jsonpath') {
        stdout.write(renderJsonPath(template, value));
      } else if (options.format === 'custom-columns') {
        // Each item of a list is a row, as kubectl does; a single object is one row.
        const items = (value as { items?: unknown }).items;
        const { headers, rows } = customColumns(template, Array.isArray(items) ? items : [value]);
        stdout.write(
          formatTable(
            headers,
            rows.map((row) => row.map((text) => ({ text }))),
          ),
        );
      } else {
        stdout.write(options.format === 'yaml' ? toYaml(value) : toJson(value));
      }
    },
    documents(values) {
      stdout.write(
        options.format === 'yaml' ? toYamlStream(values) : toJson({ apiVersion: 'v1', kind: 'List', items: values }),
      );
    },
    table(headers, rows) {
      const [h, r] = withoutNamespace(headers, rows);
      stdout.write(formatTable(h, r));
    },
    line(text) {
      stdout.write(`${text}\n`);
    },
    progress(text) {
      toStderr(`${errColor ? text : stripAnsi(text)}\n`);
    },
    error(text) {
      toStderr(`error: ${text.replace(/\s*\n\s*/g, ' ')}\n`);
    },
    counter(label, total) {
      if (!errColor || machine || total < COUNTER_MIN_ITEMS) return { tick() {}, done() {} };
      let done = 0;
      let drawnAt = 0;
      const draw = () => {
        stderr.write(`${CLEAR_LINE}${label} ${done}/${total}`);
        counterShown = true;
        drawnAt = Date.now();
      };
      draw();
      return {
        tick() {
          done++;
          if (done === total || Date.now() - drawnAt >= COUNTER_INTERVAL_MS) draw();
        },
        done() {
          toStderr('');
        },
      };
    },
    tableStream(allHeaders, minWidths = {}) {
      const [headers] = withoutNamespace(allHeaders, []);
      let widths: number[] | undefined;
      return {
        rows(allRows) {
          const [, rows] = withoutNamespace(allHeaders, allRows);
          if (rows.length === 0) return;
          const header = headers.map((h) => ({ text: h.toUpperCase() }));
          if (!widths) {
            // Widths a later row may need (READY's "Deleting"), so later lines keep the header's columns.
            widths = columnWidths(headers, rows).map((w, col) => Math.max(w, minWidths[headers[col]] ?? 0));
            stdout.write(formatRows([header, ...rows], widths));
            return;
          }
          // A cell wider than its column widens it for good (kubectl's tabwriter remembers
          // widths too); the header goes out again in the new widths, so that every line still
          // lines up with the header above it.
          const current = widths;
          const wider = columnWidths(headers, rows).map((w, col) => Math.max(w, current[col]));
          // The last column is not padded: its width moves nothing.
          const widened = wider.some((w, col) => col < wider.length - 1 && w > current[col]);
          widths = wider;
          stdout.write(formatRows(widened ? [header, ...rows] : rows, widths));
        },
      };
    },
  };
}

/** ✓, ‼ or ✗, coloured like kubectl's and linkerd's: green, yellow, red; - for a check not made. */
export function checkMark(color: ChalkInstance, status: 'ok' | 'warn' | 'fail' | 'skip'): string {
  if (status === 'skip') return color.dim('-');
  return status === 'ok' ? color.green('✓') : status === 'warn' ? color.yellow('‼') : color.red('✗');
}

function toJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

function toYaml(value: unknown): string {
  return yaml.dump(value, { noRefs: true, lineWidth: -1, sortKeys: false });
}

/** Several objects as one multi-document YAML stream, which `kubectl apply -f -` accepts. */
export function toYamlStream(values: unknown[]): string {
  return values.map((value) => `---\n${toYaml(value)}`).join('');
}

/** Like kubectl's tabwriter: uppercase headers, columns padded with 3 spaces, no borders. */
export function formatTable(headers: string[], rows: Cell[][]): string {
  const all: Cell[][] = [headers.map((h) => ({ text: h.toUpperCase() })), ...rows];
  return formatRows(all, columnWidths(headers, rows));
}

function columnWidths(headers: string[], rows: Cell[][]): number[] {
  return headers.map((header, col) => Math.max(header.length, ...rows.map((row) => (row[col]?.text ?? '').length)));
}

function formatRows(all: Cell[][], widths: number[]): string {
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

function stripAnsi(text: string): string {
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
