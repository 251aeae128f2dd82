// What status -w says of its watches' trouble: a warning once per cause, not once per retry.
// An API server that is down fails every reflector's every retry with the same error; the
// reader needs to hear it once, and again only when the cause changes or comes back.
import { WORKS_AGAIN } from '../controller/reflector';

type Log = (level: 'info' | 'error' | 'debug', message: string, fields?: Record<string, unknown>) => void;

/** A log that prints each error once while it lasts: until every reflector that met it works again. */
export function warnOncePerCause(print: (text: string) => void): Log {
  /** Each error printed and still current, with the reflectors that meet it. */
  const current = new Map<string, Set<string>>();
  return (level, message, fields) => {
    const reflector = typeof fields?.reflector === 'string' ? fields.reflector : undefined;
    const error = typeof fields?.error === 'string' ? fields.error : undefined;
    if (message === WORKS_AGAIN && reflector !== undefined) {
      for (const [cause, reflectors] of current) {
        reflectors.delete(reflector);
        if (reflectors.size === 0) current.delete(cause);
      }
      return;
    }
    if (level !== 'error') return;
    const text = `warning: ${message}${error !== undefined ? `: ${error}` : ''}`;
    if (reflector === undefined || error === undefined) {
      print(text);
      return;
    }
    // A reflector that meets another error has left its earlier one.
    for (const [cause, reflectors] of current) {
      if (cause !== error && reflectors.delete(reflector) && reflectors.size === 0) current.delete(cause);
    }
    const reflectors = current.get(error);
    if (reflectors) {
      reflectors.add(reflector);
      return;
    }
    current.set(error, new Set([reflector]));
    print(text);
  };
}
