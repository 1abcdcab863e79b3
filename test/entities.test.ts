// The entity decoder behind decodeEntities: exactly the five XML entities and numeric references.
import t from 'tap'
import fc from 'fast-check'
import { decodeEntities, partialEntityStart } from '../lib/parse/entities.js'

t.test('decodes what it should and nothing else', async (t) => {
  t.equal(decodeEntities('a &amp;&amp; b'), 'a && b')
  t.equal(decodeEntities('&&amp;'), '&&')
  t.equal(decodeEntities('&lt;div&gt; &quot;x&quot; &apos;y&apos;'), '<div> "x" \'y\'')
  t.equal(decodeEntities('&#65;&#x42;&#X43;&#128512;'), 'ABC😀')
  t.equal(decodeEntities('&#0; &#xD800; &#1114112; &#; &#x;'), '&#0; &#xD800; &#1114112; &#; &#x;', 'invalid code points stay')
  t.equal(decodeEntities('&constructor; &toString; &nbsp; &AMP;'), '&constructor; &toString; &nbsp; &AMP;', 'no prototype names, no HTML-only names')
  t.equal(decodeEntities('x & y; z && w;'), 'x & y; z && w;')
})

t.test('linear on a million ampersands without semicolons', async (t) => {
  const s = '&'.repeat(1_000_000) + ';'
  t.equal(decodeEntities(s), s)
})

t.test('decoding in pieces, holding a partial entity back, equals decoding the whole', async (t) => {
  // whole entities as well as their parts, so that most texts hold one to cut through
  const part = fc.constantFrom('&', 'amp', ';', 'lt', '#', '6', '5', 'x', '4', '1', 'a', ' ', '&amp;', '&lt;', '&#65;', '&#x42;', '&#1234567;', '&apos;')
  const text = fc.array(part, { maxLength: 30, size: 'max' }).map((a) => a.join(''))
  let decoded = 0
  fc.assert(fc.property(text, fc.nat(60), (s, cut) => {
    if (decodeEntities(s) !== s) decoded++
    const k = Math.min(cut, s.length)
    let head = s.slice(0, k)
    const held = head.slice(partialEntityStart(head))
    head = head.slice(0, head.length - held.length)
    const pieces = decodeEntities(head) + decodeEntities(held + s.slice(k))
    if (pieces !== decodeEntities(s)) throw new Error(JSON.stringify([s, k, pieces, decodeEntities(s)]))
  }), { numRuns: 3000 })
  t.ok(decoded > 1500, `most of the texts had an entity to decode (${decoded} of 3000)`)
})

t.test('partialEntityStart: the last "&" within 11 characters of the end, if what follows it may still become an entity', async (t) => {
  // the rule as first written (lastIndexOf), against the look at the last 11 characters only
  const rule = (s: string): number => {
    const amp = s.lastIndexOf('&')
    if (amp < 0 || s.length - amp > 11) return s.length
    return /&(?:[a-z]{0,4}|#[0-9]{0,8}|#[xX][0-9a-fA-F]{0,8})$/u.test(s.slice(amp)) ? amp : s.length
  }
  const chars = fc.constantFrom('&', '#', 'x', 'a', 'm', 'p', '1', 'F', ';', ' ')
  fc.assert(fc.property(fc.array(chars, { maxLength: 30 }).map((a) => a.join('')), fc.nat(40), (s, pad) => {
    const long = 'y'.repeat(pad) + s
    t.equal(partialEntityStart(long), rule(long), JSON.stringify(long))
  }), { numRuns: 2000 })
  t.equal(partialEntityStart('&' + 'z'.repeat(10)), 11, "'&' and ten letters can become no entity")
  t.equal(partialEntityStart('x&#12'), 1)
  t.equal(partialEntityStart('x&#12&am'), 5)
})
