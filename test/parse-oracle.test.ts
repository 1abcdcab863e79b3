// The engine against an independent oracle: bench/naive.mjs, written from SPEC 3 the way the
// original parser works (every tag tested at every character). Needs the build (npm test builds).
import t from 'tap'
import fc from 'fast-check'
import { parseAssistantMessage } from '../lib/index.js'
import { naiveParse } from '../bench/naive.mjs'
import { soup, strip } from './helpers/arb.js'

t.test('parseAssistantMessage equals the naive reference on random tag soups', async (t) => {
  fc.assert(fc.property(soup, (s) => {
    const got = JSON.stringify(strip(parseAssistantMessage(s)))
    const want = JSON.stringify(naiveParse(s))
    if (got !== want) throw new Error(`${JSON.stringify(s)}\n got ${got}\nwant ${want}`)
  }), { numRuns: 3000 })
  t.pass('3000 soups agree')
})

t.test('and on every prefix of a realistic message', async (t) => {
  const msg = 'I will look. a < b, <div>x</div>\n<read_file>\n<path>src/a.ts</path>\n</read_file>\n<write_to_file>\n<path>x.xml</path>\n<content>\n<a></content></a>\n</content>\n</write_to_file>\nDone <execute_command><command>ls</command>'
  let bad = 0
  for (let i = 0; i <= msg.length; i++) {
    if (JSON.stringify(strip(parseAssistantMessage(msg.slice(0, i)))) !== JSON.stringify(naiveParse(msg.slice(0, i)))) bad++
  }
  t.equal(bad, 0, `all ${msg.length + 1} prefixes agree`)
})
