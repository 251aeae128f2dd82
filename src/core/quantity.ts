// Kubernetes quantities (resource.Quantity) compared by value, as apimachinery's
// equality.Semantic does: `0.5` and `500m` are the same CPU, `1.5Gi` and `1536Mi` the same
// memory. The API server stores a canonical spelling of what it was sent, so a comparison of
// strings would see a difference on every pass. Pure.

const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/;

const BINARY: Record<string, bigint> = { Ki: 1n, Mi: 2n, Gi: 3n, Ti: 4n, Pi: 5n, Ei: 6n };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/** Nano-units: the finest precision a Quantity keeps (finer values are rounded up). */
const NANO_DIGITS = 9;

/**
 * The value of a quantity in nano-units (10^-9), rounded up as the API server rounds, or
 * undefined when the text is not a quantity. Numbers (a CRD accepts `cpu: 1`) are their text.
 */
export function quantityNanos(value: unknown): bigint | undefined {
  const text = typeof value === 'number' && Number.isFinite(value) ? numberText(value) : value;
  if (typeof text !== 'string') return undefined;
  const match = QUANTITY.exec(text.trim());
  if (!match) return undefined;
  const [, number, exponent, suffix] = match;
  const negative = number.startsWith('-');
  const [whole, fraction = ''] = number.replace(/^[+-]/, '').split('.');
  // The number as an integer mantissa and a power of ten.
  let mantissa = BigInt((whole || '0') + fraction);
  let power = -fraction.length;
  if (exponent) power += Number(exponent.slice(1));
  else if (suffix && suffix in DECIMAL) power += DECIMAL[suffix];
  else if (suffix && suffix in BINARY) mantissa *= 1024n ** BINARY[suffix];
  const shift = power + NANO_DIGITS;
  let nanos: bigint;
  if (shift >= 0) {
    nanos = mantissa * 10n ** BigInt(shift);
  } else {
    const divisor = 10n ** BigInt(-shift);
    // Away from zero, as Quantity rounds a value finer than it keeps.
    nanos = mantissa / divisor + (mantissa % divisor === 0n ? 0n : 1n);
  }
  return negative ? -nanos : nanos;
}

/** Whether two quantities are the same amount; two texts that are not quantities compare as text. */
export function sameQuantity(a: unknown, b: unknown): boolean {
  const x = quantityNanos(a);
  const y = quantityNanos(b);
  return x !== undefined && y !== undefined ? x === y : a === b;
}

function numberText(value: number): string {
  // 1e21 and beyond print with an exponent already; JSON never gives NaN or Infinity.
  return String(value);
}
