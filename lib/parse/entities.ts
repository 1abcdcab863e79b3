/**
 * HTML entity decoding for parameter values (the `decodeEntities` option): the five XML
 * entities and numeric references, nothing else, so ordinary text with `&` stays as it is.
 * @internal
 * @module
 */

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }
const ENTITY = /&(?:(amp|lt|gt|quot|apos)|#([0-9]{1,8})|#[xX]([0-9a-fA-F]{1,8}));/gu
/** A trailing fragment that more text could still turn into an entity. */
const PARTIAL = /&(?:[a-z]{0,4}|#[0-9]{0,8}|#[xX][0-9a-fA-F]{0,8})$/u

function codePoint(n: number, raw: string): string {
  if (n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff) || n === 0) return raw
  return String.fromCodePoint(n)
}

/** Decodes every complete entity of `s`. */
export function decodeEntities(s: string): string {
  if (s.indexOf('&') < 0) return s
  return s.replace(ENTITY, (raw, name: string | undefined, dec: string | undefined, hex: string | undefined) => {
    if (name !== undefined) return NAMED[name]!
    if (dec !== undefined) return codePoint(parseInt(dec, 10), raw)
    return codePoint(parseInt(hex!, 16), raw)
  })
}

/** Index where a trailing possible-entity fragment starts, or `s.length`. */
export function partialEntityStart(s: string): number {
  const amp = s.lastIndexOf('&')
  if (amp < 0 || s.length - amp > 11) return s.length
  return PARTIAL.test(s.slice(amp)) ? amp : s.length
}
