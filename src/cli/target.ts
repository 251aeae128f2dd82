// What a command acts on, as kubectl users write it: NAME, several NAMEs, TYPE/NAME, --all,
// -A (every namespace, which implies --all) and -l (a label selector, which implies --all).
import { UserError } from '../kube/errors';

export interface TargetArgs {
  /** The words after the command, as typed. */
  names?: string[];
  /** Exactly one WebService (set by resolveTarget). */
  name?: string;
  /** Two or more WebServices (set by resolveTarget). */
  many?: string[];
  all?: boolean;
  selector?: string;
}

/** The ways kubectl lets one name the resource type: webservice/x, ws/x, webservices.apps.labhub.io/x... */
const OUR_TYPES = new Set([
  'webservice',
  'webservices',
  'ws',
  'webservice.apps.labhub.io',
  'webservices.apps.labhub.io',
  'webservice.v1.apps.labhub.io',
  'webservices.v1.apps.labhub.io',
]);

/** Sets name or many from names, and all from -A or -l; refuses what cannot go together. */
export function resolveTarget(args: TargetArgs, allNamespaces: boolean): void {
  const names = [...new Set((args.names ?? []).map(bareName))];
  if (names.length === 1) args.name = names[0];
  if (names.length > 1) args.many = names;
  if (names.length > 0) {
    if (args.all) throw new UserError('give either NAMEs or --all, not both');
    if (args.selector !== undefined) {
      throw new UserError('a selector (-l) chooses among all WebServices: give it without NAMEs');
    }
    if (allNamespaces) throw new UserError('a WebService cannot be retrieved by name across all namespaces');
    return;
  }
  if (allNamespaces || args.selector !== undefined) args.all = true;
}

function bareName(word: string): string {
  const slash = word.indexOf('/');
  if (slash < 0) return word;
  const type = word.slice(0, slash).toLowerCase();
  if (!OUR_TYPES.has(type)) {
    throw new UserError(`"${word}": this plugin acts on webservices only (give NAME or webservice/NAME)`);
  }
  return word.slice(slash + 1);
}
