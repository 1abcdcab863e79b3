#!/usr/bin/env node
// A long run of the streaming law (any chunking = the parse of every prefix), for maintainers:
// `npm run fuzz [-- RUNS]`. The suite runs the same law with fewer cases; this one found the
// chunking bugs that the suite's seeds had not. Uses the build (dist/) and the DiffSession
// directly, so a synchronous loop of thousands of parsers does not pile up stream callbacks.
import fc from 'fast-check'
import { parseAssistantMessage, applyDiff } from '../dist/index.js'
import { DiffSession } from '../dist/streams/session.js'

const runs = Number(process.argv[2] ?? 5000)
const TOOLS = ['read_file', 'write_to_file', 'execute_command', 'attempt_completion']
const PARAMS = ['path', 'content', 'command', 'result']
const NAMES = [...TOOLS, ...PARAMS, 'thinking', 'think', 'write_file', 'foo']
const piece = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...NAMES).map((n) => `<${n}>`) },
  { weight: 6, arbitrary: fc.constantFrom(...NAMES).map((n) => `</${n}>`) },
  { weight: 2, arbitrary: fc.constantFrom(...NAMES).map((n) => `< ${n} >`) },
  { weight: 2, arbitrary: fc.constantFrom(...NAMES).map((n) => `</${n} >`) },
  { weight: 4, arbitrary: fc.constantFrom('<', '</', '>', '<read_fi', '</pa', '``', '```', '`', '\n```xml\n', '\n', '&amp;', '&lt;', '&#60;', '&am', ' ', '  \n') },
  { weight: 3, arbitrary: fc.constantFrom('a', 'x y', 'é', '😀') },
)
const soup = fc.array(piece, { maxLength: 50 }).map((a) => a.join(''))
const counter = () => { let n = 0; return () => 'c' + (++n) }
const json = JSON.stringify
const profiles = [
  {}, { profile: 'robust', diagnostics: false }, { codeFences: true },
  { lenientTags: true, hidePartialTags: true }, { greedyWhileStreaming: true, decodeEntities: true },
]

for (const opts of profiles) {
  fc.assert(fc.property(soup, fc.array(fc.nat(300), { maxLength: 15 }), (s, cuts) => {
    const points = [...new Set(cuts.map((c) => c % (s.length + 1)))].sort((a, b) => a - b)
    const chunks = []
    let last = 0
    for (const p of points) { if (p > last) chunks.push(s.slice(last, p)); last = Math.max(last, p) }
    if (last < s.length) chunks.push(s.slice(last))
    let blocks = []
    const session = new DiffSession({ ...opts, idGenerator: counter() }, { record: (d) => { blocks = applyDiff(blocks, d) }, diagnostic: () => {} })
    let prefix = ''
    for (const c of chunks) {
      session.push(c)
      prefix += c
      const want = parseAssistantMessage(prefix, { ...opts, idGenerator: counter() })
      if (json(want) !== json(blocks)) throw new Error(`${json(opts)} ${json(chunks)}\n got ${json(blocks)}\nwant ${json(want)}`)
    }
  }), { numRuns: runs })
  console.log(`ok ${json(opts)}: ${runs} chunked soups`)
}
