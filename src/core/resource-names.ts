// The names Kubernetes accepts for a container's resources (its requests and limits), as its
// validation has them (pkg/apis/core/validation, validateContainerResourceName): the standard
// ones, hugepages of a size, and any name with a domain prefix (an extended resource such as
// nvidia.com/gpu). Client-side validation and the CRD's rule are made from this one list. Pure.

const STANDARD = ['cpu', 'memory', 'ephemeral-storage'];
const HUGEPAGES_PREFIX = 'hugepages-';
/** A qualified name with a DNS subdomain as its prefix: nvidia.com/gpu. */
const PREFIXED =
  '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$';
/**
 * The most names a requests or a limits may have (a container has a handful). Kubernetes sets
 * no bound, but the API server prices a CEL rule over a map by the most entries it may hold:
 * unbounded, this rule is at 0.9 of its budget with the simplest test of a name, and at 2.1
 * times it with PREFIXED.
 */
export const MAX_RESOURCE_NAMES = 64;

/** What the names may be, for a message. */
export const RESOURCE_NAMES =
  'cpu, memory, ephemeral-storage, hugepages-<size>, or a name with a domain prefix such as nvidia.com/gpu';

export function isResourceName(name: string): boolean {
  return STANDARD.includes(name) || name.startsWith(HUGEPAGES_PREFIX) || new RegExp(PREFIXED).test(name);
}

/** The same test as a CEL rule over a map of them (a requests or limits), for the CRD. */
export function resourceNamesRule(): string {
  const standard = STANDARD.map((name) => `'${name}'`).join(', ');
  const prefixed = PREFIXED.replace(/\\/g, '\\\\');
  return `self.all(name, name in [${standard}] || name.startsWith('${HUGEPAGES_PREFIX}') || name.matches('${prefixed}'))`;
}
