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
  const kept: Buffer[] = [];
  let from = 0;
  for (let at = body.indexOf(MEMBER); at >= 0; at = body.indexOf(MEMBER, Math.max(from, at + 1))) {
    // Not a member of its own (e.g. the end of a key that contains an escaped quote).
    if (body[at - 1] !== COMMA && body[at - 1] !== BRACE) continue;
    const close = closingBracket(body, at + MEMBER.length);
    if (close < 0) break;
    let begin = at;
    let end = close + 1;
    // Keep the object valid: take the comma before the member, or else the one after it.
    if (body[at - 1] === COMMA) begin = at - 1;
    else if (body[end] === COMMA) end++;
    kept.push(body.subarray(from, begin));
    from = end;
  }
  if (kept.length === 0) return body;
  kept.push(body.subarray(from));
  return Buffer.concat(kept);
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
