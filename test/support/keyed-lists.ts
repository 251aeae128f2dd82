// The committed table of keyed lists (src/core/list-keys.generated.ts) against this API server's
// OpenAPI: what npm run crd:generate would write for these kinds now.
import { keyedLists, openApiPath } from '../../harness/crd/list-keys';
import type { OpenApiDocument } from '../../harness/crd/schema';
import { KEYED_LISTS } from '../../src/core/list-keys.generated';
import { kubectl } from './cluster';

const openApi = (apiVersion: string) =>
  JSON.parse(kubectl(['get', '--raw', `/openapi/v3/${openApiPath(apiVersion)}`])) as OpenApiDocument;

/** Expects the table's rows of these kinds to be what this API server's OpenAPI makes. */
export function expectKeyedListsOfServer(kinds: readonly { apiVersion: string; kind: string }[]): void {
  const versions = [...new Set(kinds.map((kind) => kind.apiVersion))];
  const generated = keyedLists(versions.map(openApi), kinds);
  const table: Record<string, unknown> = KEYED_LISTS;
  for (const [kind, lists] of Object.entries(generated)) expect({ kind, lists: table[kind] }).toEqual({ kind, lists });
}
