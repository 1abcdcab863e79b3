/**
 * HTML entity decoding for parameter values (the `decodeEntities` option): the five XML
 * entities and numeric references, nothing else, so ordinary text with `&` stays as it is.
 * @internal
 * @module
 */

const NAMED = new Map([['amp', '&'], ['lt', '<'], ['gt', '>'], ['quot', '"'], ['apos', "'"]])
// character codes
const AMP = 38 // '&'
const HASH = 35 // '#'
const LOWER_A = 97
const LOWER_Z = 122

/** A trailing fragment that more text could still turn into an entity. */
const PARTIAL = /&(?:[a-z]{0,4}|#[0-9]{0,8}|#[xX][0-9a-fA-F]{0,8})$/u

/**
 * Decodes every complete entity of `s`. By hand: code is full of `&&`, and a regex replace with a callback is slow.
 * @group Parsing
 */
export function decodeEntities(s: string): string {
  let amp = s.indexOf('&')
  if (amp < 0) return s
  // after the last ';' no entity can end: code without one (a JSX file full of `&&`) is passed
  // at once
  let semi = s.indexOf(';', amp + 1)
  if (semi < 0) return s
  let out = ''
  let last = 0
  while (amp >= 0) {
    // an entity's body starts with '#' or a lowercase letter (the five named): code's `&&`, `&1`
    // and `& ` are passed at one look, without looking for their ';'
    const c = s.charCodeAt(amp + 1)
    if (c === AMP) {
      amp++
      continue
    }
    if (c !== HASH && !(c >= LOWER_A && c <= LOWER_Z)) {
      amp = s.indexOf('&', amp + 2)
      continue
    }
    // each ';' is looked for once, however many '&' come before it
    if (semi <= amp) {
      semi = s.indexOf(';', amp + 1)
      if (semi < 0) break
    }
    let ch: string | undefined
    if (semi - amp <= 11) {
      const body = s.slice(amp + 1, semi)
      ch = NAMED.get(body)
      if (ch === undefined && c === HASH) {
        const hex = body.charCodeAt(1) === 120 || body.charCodeAt(1) === 88
        const digits = body.slice(hex ? 2 : 1)
        if (digits.length > 0 && digits.length <= 8 && (hex ? /^[0-9a-fA-F]+$/u : /^[0-9]+$/u).test(digits)) {
          const n = parseInt(digits, hex ? 16 : 10)
          if (!(n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff) || n === 0)) ch = String.fromCodePoint(n)
        }
      }
    }
    if (ch === undefined) {
      amp = s.indexOf('&', amp + 1)
      continue
    }
    out += s.slice(last, amp) + ch
    last = semi + 1
    amp = s.indexOf('&', last)
  }
  return last === 0 ? s : out + s.slice(last)
}

/**
 * Index where a trailing possible-entity fragment starts, or `s.length`.
 * @group Parsing
 */
export function partialEntityStart(s: string): number {
  // only a '&' among the last 11 characters can start one: look there, not back from the end
  // over a whole value without any (lastIndexOf walks it character by character)
  const n = s.length
  let amp = s.indexOf('&', n > 11 ? n - 11 : 0)
  if (amp < 0) return n
  for (let k = s.indexOf('&', amp + 1); k >= 0; k = s.indexOf('&', k + 1)) amp = k
  return PARTIAL.test(s.slice(amp)) ? amp : n
}
