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
