// Which optional kinds of child (the kind table's optional rows) the cluster does not serve:
// discovery, through the client's apiServed (one GET of a group-version's document each).
import { OPTIONAL_KINDS } from '../core/kinds';
import type { KubeApi } from './api';

/** The optional kinds whose API is absent; fresh: ask the server again rather than reuse an answer. */
export async function absentKinds(client: Pick<KubeApi, 'apiServed'>, fresh = false): Promise<string[]> {
  const served = await Promise.all(OPTIONAL_KINDS.map((row) => client.apiServed(row, { fresh })));
  return OPTIONAL_KINDS.filter((_, i) => !served[i]).map((row) => row.kind);
}
