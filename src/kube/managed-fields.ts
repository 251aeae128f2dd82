// Drops metadata.managedFields from a JSON response before it is parsed. Nothing in the
// plugin or the controller reads them (writes are merge patches of our own fields), yet
// they are about half the bytes of a list of WebServices or ConfigMaps: parsing them costs
// CPU, and the objects they become cost memory and GC until the pass ends.
//
// Works on the raw bytes of the apiserver's compact JSON. A member starts right after `{`
// or `,`; those bytes followed by `"managedFields":[` cannot be inside a JSON string (a
// quote in a string is always escaped), and in our objects only metadata has a member of
// that name. Anything unexpected (whitespace, a truncated body) leaves the rest of the body
// as it was: parsing stays correct, only slower.

const MEMBER = Buffer.from('"managedFields":[');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = 0x5b;
const CLOSE = 0x5d;
const COMMA = 0x2c;
const BRACE = 0x7b;

/** The body without any `"managedFields":[…]` member (and one comma beside it). */
export function withoutManagedFields(body: Buffer): Buffer {
  const stripper = new ManagedFieldsStripper();
  const kept = [...stripper.push(body), ...stripper.end()];
  // Nothing removed: the pieces are the body itself.
  return kept.reduce((length, piece) => length + piece.length, 0) === body.length ? body : Buffer.concat(kept);
}

/**
 * The same, for a body that arrives in chunks: what it keeps is passed on as it arrives, so a
 * large list is never held whole, and again without its managedFields, at once. It holds back
 * only a member that is not complete yet, and the few bytes that might begin one.
 */
export class ManagedFieldsStripper {
  /** Bytes not passed on yet. */
  private pending: Buffer = Buffer.alloc(0);
  /** The last byte passed on: what precedes pending[0]. Never a comma (see pass). */
  private last: number | undefined;

  /** What can be passed on of the body so far, with this chunk. */
  push(chunk: Buffer): Buffer[] {
    const body = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const kept: Buffer[] = [];
    let from = 0;
    for (let at = body.indexOf(MEMBER); ; at = body.indexOf(MEMBER, at + 1)) {
      if (at < 0) {
        // What may begin a member stays: a partial match, and the byte before it.
        return this.pass(kept, body, from, Math.max(from, body.length - MEMBER.length));
      }
      // Not a member of its own (e.g. the end of a key that contains an escaped quote).
      const before = at > from ? body[at - 1] : this.last;
      if (before !== COMMA && before !== BRACE) continue;
      const close = closingBracket(body, at + MEMBER.length);
      // Not complete yet, or its comma after it not here yet: wait for more, from its comma before.
      if (close < 0 || (before === BRACE && close + 1 >= body.length)) {
        return this.pass(kept, body, from, before === COMMA ? at - 1 : at);
      }
      let begin = at;
      let end = close + 1;
      // Keep the object valid: take the comma before the member, or else the one after it.
      if (before === COMMA) begin = at - 1;
      else if (body[end] === COMMA) end++;
      if (begin > from) {
        kept.push(body.subarray(from, begin));
        this.last = body[begin - 1];
      }
      from = end;
      at = end - 1;
    }
  }

  /** The rest, at the end of the body: an incomplete member stays as it was, for JSON.parse to report. */
  end(): Buffer[] {
    const rest = this.pending;
    this.pending = Buffer.alloc(0);
    return rest.length > 0 ? [rest] : [];
  }

  /**
   * Passes on body[from, upTo) and keeps the rest. A comma at its end stays too: it may be the
   * one before a member, to be dropped with it.
   */
  private pass(kept: Buffer[], body: Buffer, from: number, upTo: number): Buffer[] {
    let until = upTo;
    if (until > from && body[until - 1] === COMMA) until--;
    if (until > from) {
      kept.push(body.subarray(from, until));
      this.last = body[until - 1];
    }
    this.pending = Buffer.from(body.subarray(until));
    return kept;
  }
}

/** Index of the `]` that closes an array whose first element starts at `start`; -1 if none. */
function closingBracket(body: Buffer, start: number): number {
  let depth = 1;
  let inString = false;
  for (let i = start; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN) {
      depth++;
    } else if (c === CLOSE && --depth === 0) {
      return i;
    }
  }
  return -1;
}
