// Every case of the original implementation's outputs, from the suite's own copy of the corpus.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseAssistantMessage } from '../lib/index.js'
import { strip } from './helpers/arb.js'

const corpus = fileURLToPath(new URL('./fixtures/conformance/parse.cline.jsonl', import.meta.url))
const cases = readFileSync(corpus, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { name: string; input: string; expected: unknown[] })

t.equal(cases.length, 569, 'the whole corpus is read')
let failed = 0
for (const c of cases) {
  const got = strip(parseAssistantMessage(c.input))
  // byte for byte, so key order counts too
  if (JSON.stringify(got) !== JSON.stringify(c.expected)) {
    failed++
    t.fail(c.name, { input: c.input, got, expected: c.expected })
  }
}
t.equal(failed, 0, `all ${cases.length} conformance cases match byte for byte`)

t.test('call ids: 8 URL-safe characters by default, idGenerator when given', async (t) => {
  const [b] = parseAssistantMessage('<read_file><path>a</path></read_file>')
  t.equal(b!.type, 'tool_use')
  if (b!.type === 'tool_use') {
    t.match(b!.call_id, /^[A-Za-z0-9_-]{8}$/)
    t.equal(b!.isNativeToolCall, false)
    t.same(Object.keys(b!), ['type', 'name', 'params', 'partial', 'call_id', 'isNativeToolCall'], 'key order as in SPEC 1')
  }
  let n = 0
  const blocks = parseAssistantMessage('<read_file></read_file><list_files></list_files>', { idGenerator: () => `id${++n}` })
  t.same(blocks.map((b) => (b.type === 'tool_use' ? b.call_id : null)), ['id1', 'id2'])
})
