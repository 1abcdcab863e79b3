// The robust profile (SPEC 4): each option with the failing input that motivates it, and the
// streaming laws under it.
import t from 'tap'
import fc from 'fast-check'
import { parseAssistantMessage, parseWithDiagnostics, BlockParser, applyDiff, type Block, type BlockDiff, type DiffRecord, type Diagnostic, type ToolUseBlock } from '../lib/index.js'
import { strip, counter, fixedChunks, chunksOf } from './helpers/arb.js'

const p = (s: string, o: object): unknown[] => {
  return strip(parseAssistantMessage(s, { idGenerator: counter(), ...o }))
}
const text = (content: string, partial = false) => ({ type: 'text', content, partial })
const tool = (name: string, params: Record<string, string>, partial = false) => ({ type: 'tool_use', name, params, partial })

/** Snapshots after each chunk, through a real BlockParser. */
function snapshots(chunks: string[], opts: object): Block[][] {
  const parser = new BlockParser({ highWaterMark: 1 << 20, idGenerator: counter(), ...opts })
  const out: Block[][] = []
  let blocks: Block[] = []
  const take = (): void => {
    let r: DiffRecord | null
    while ((r = parser.read() as DiffRecord | null) !== null) if ('index' in r || r.op === 'truncate') blocks = applyDiff(blocks, r as BlockDiff)
    out.push(blocks)
  }
  for (const c of chunks) {
    parser.write(c)
    take()
  }
  parser.end()
  take()
  return out
}

t.test('codeFences: tags in fences and inline code are text', async (t) => {
  const o = { codeFences: true }
  t.same(p('Use the `<read_file>` tool.', o), [text('Use the `<read_file>` tool.', true)], 'a mention in inline code is not a call')
  t.same(p('Example:\n```xml\n<execute_command><command>rm -rf /</command></execute_command>\n```\nDone.', o),
    [text('Example:\n```xml\n<execute_command><command>rm -rf /</command></execute_command>\n```\nDone.', true)])
  t.same(p('```\n<read_file><path>a</path></read_file>', o), [text('```\n<read_file><path>a</path></read_file>', true)], 'an unclosed fence runs to the end')
  t.same(p('```\nx\n```\n<read_file><path>a</path></read_file>', o), [text('```\nx\n```'), tool('read_file', { path: 'a' })], 'after the fence closes, tags count again')
  t.same(p('It costs `$5 <read_file><path>a</path></read_file>', o), [text('It costs `$5 <read_file><path>a</path></read_file>', true)], 'unmatched backtick on the unfinished last line: an open span')
  t.same(p('It costs `$5 <read_file><path>a</path></read_file>\n', o), [text('It costs `$5'), tool('read_file', { path: 'a' })], 'the line ended unmatched: the backtick was literal, the tool appears')
  t.same(p('<read_file><path>`x`</path></read_file>', o), [tool('read_file', { path: '`x`' })], 'backticks inside a tool mean nothing')
  t.same(p('```\n<read_file><path>a</path></read_file>\n```', {}), [text('```'), tool('read_file', { path: 'a' }), text('```', true)], 'cline profile: fences mean nothing')
})

t.test('codeFences: a code span or fence after a long stretch of text (its backticks looked for up to the next tag candidate only)', async (t) => {
  const o = { codeFences: true }
  for (const n of [60, 65, 200, 5000]) {
    const prose = 'p'.repeat(n)
    const span = `${prose} see \`<read_file><path>a.ts</path></read_file>\` and go`
    t.same(p(span, o), [text(span, true)], `inline code after ${n} characters of text`)
    // a '<' that is no tag first: the backtick lies past that candidate
    const past = `${prose} a <b ${prose} see \`<read_file><path>a.ts</path></read_file>\` and go`
    t.same(p(past, o), [text(past, true)], `inline code past a stray '<', ${n} characters on each side`)
    const fence = `${prose} a <b ${prose}\n\`\`\`\n<read_file><path>a.ts</path></read_file>\n\`\`\`\nok`
    t.same(p(fence, o), [text(fence, true)], `a fence past a stray '<', ${n} characters on each side`)
    const after = `${prose} \`x\` ${prose} <read_file><path>a.ts</path></read_file>`
    t.same(p(after, o), [text(`${prose} \`x\` ${prose}`), tool('read_file', { path: 'a.ts' })], `a closed span far before a tool: the tool counts (${n})`)
    for (const size of [1, 7, 16, 1000]) {
      const chunks = fixedChunks(past, size)
      t.same(strip(snapshots(chunks, o).at(-2)!), p(past, o), `streamed in ${size}-character chunks (${n}): the last snapshot before the end`)
    }
  }
})

t.test('codeFences: a tool appears late but never vanishes (3.8) on every prefix', async (t) => {
  const s = 'See `a <read_file><path>x</path></read_file> and `b` then <list_files><path>.</path></list_files>\n```\n<read_file></read_file>\n```\nok'
  let prev: Block[] = []
  for (let i = 0; i <= s.length; i++) {
    const next = parseAssistantMessage(s.slice(0, i), { codeFences: true, idGenerator: counter() })
    prev.forEach((b, k) => { if (!b.partial) t.same(next[k], b, `complete block ${k} kept at prefix ${i}`) })
    prev = next
  }
  t.same(strip(prev), [text('See `a <read_file><path>x</path></read_file> and `b` then'), tool('list_files', { path: '.' }), text('```\n<read_file></read_file>\n```\nok', true)])
})

t.test('decodeEntities: commands arrive decoded', async (t) => {
  const o = { decodeEntities: true }
  t.same(p('<execute_command><command>npm test &amp;&amp; echo &quot;ok&quot; &gt; out &lt; in &apos;x&apos; &#65;&#x42;</command></execute_command>', o),
    [tool('execute_command', { command: 'npm test && echo "ok" > out < in \'x\' AB' })])
  t.same(p('<execute_command><command>&bogus; &#xD800; a & b</command></execute_command>', o), [tool('execute_command', { command: '&bogus; &#xD800; a & b' })], 'unknown and invalid entities stay')
  t.same(p('Text &amp; more', o), [text('Text &amp; more', true)], 'text blocks are not decoded')
  const chunks = fixedChunks('<execute_command><command>a &amp;&amp; b</command></execute_command>', 1)
  const snaps = snapshots(chunks, { ...o, hidePartialTags: true }).map((s) => (s[0]?.type === 'tool_use' ? s[0].params.command : undefined)).filter((v) => v !== undefined)
  t.notOk(snaps.some((v) => /&am?p?$/.test(v!)), 'with hidePartialTags, a half-received entity is held back, not shown')
  t.equal(snaps.at(-1), 'a && b')
})

t.test('hidePartialTags: no flicker of cut tags, released at the end', async (t) => {
  const o = { hidePartialTags: true }
  t.same(p('<read_file><path>src/a.ts</pa', o), [tool('read_file', { path: 'src/a.ts' }, true)])
  t.same(p('Hello <read_fi', o), [text('Hello', true)])
  t.same(p('Hello <read_fi', { ...o, final: true }), [text('Hello <read_fi')], 'at the end what was held is released')
  t.same(p('a < b', o), [text('a < b', true)], 'a lone < that cannot become a tag is shown')
  // the law: a value shown is never taken back later, except the held fragment itself
  const msgs = fc.constantFrom(
    'I will read it. <read_file><path>src/components/App.tsx</path></read_file> Then <execute_command><command>npm run build</command></execute_command>',
    '<write_to_file><path>a.xml</path><content><a></content></a></content></write_to_file>',
    'x < y, <b>bold</b> <list_files><path>.</path><recursive>true</recursive></list_files>',
  )
  fc.assert(fc.property(msgs, fc.array(fc.nat(200), { maxLength: 30, size: 'max' }), (s, cuts) => {
    const snaps = snapshots(chunksOf(s, cuts), o)
    for (let i = 1; i < snaps.length; i++) {
      snaps[i - 1]!.forEach((b, k) => {
        const n = snaps[i]![k]
        if (n === undefined) throw new Error('a block vanished')
        const values = (x: Block): string[] => (x.type === 'tool_use' ? Object.values(x.params) : [x.type === 'text' ? x.content : x.reasoning])
        const before = values(b)
        const after = values(n)
        before.forEach((v, j) => {
          if (after[j] !== undefined && !after[j]!.startsWith(v) && b.type === 'tool_use') throw new Error(`value taken back: ${JSON.stringify(v)} -> ${JSON.stringify(after[j])}`)
        })
        if (b.type === 'text' && n.type === 'text' && !n.content.startsWith(b.content)) throw new Error(`text taken back: ${b.content} -> ${n.content}`)
      })
    }
  }), { numRuns: 300 })
})

t.test('greedyWhileStreaming: a file containing </content> is never cut short', async (t) => {
  const file = '<config>\n  <content>inner</content>\n</config>\n'
  const s = `Writing.\n<write_to_file>\n<path>cfg.xml</path>\n<content>\n${file}</content>\n</write_to_file>\nDone.`
  for (const size of [1, 3, 7, 16]) {
    const snaps = snapshots(fixedChunks(s, size), { greedyWhileStreaming: true })
    const final = (snaps.at(-1)![1] as ToolUseBlock).params.content!
    t.equal(final, file.trim())
    const contents = snaps.map((x) => (x[1] as ToolUseBlock | undefined)?.params.content).filter((v) => v !== undefined)
    t.ok(contents.every((c) => final.startsWith(c!)), `${size}-byte chunks: every streamed content is a prefix of the final one`)
  }
  // just before the closing tag arrives: the whole file with the option, cut short without it
  const lastOpen = (o: object): string | undefined => snapshots(fixedChunks(s, 1), o)
    .map((x) => x[1] as ToolUseBlock | undefined).filter((b) => b?.partial).at(-1)?.params.content
  t.equal(lastOpen({ greedyWhileStreaming: true }), file.trim())
  t.equal(lastOpen({}), '<config>\n  <content>inner', 'without the option the preview stays cut at the first </content>')
  t.same(p('<write_to_file><path>x</path><content>a</content>b</cont', { greedyWhileStreaming: true }), [tool('write_to_file', { path: 'x', content: 'a</content>b' }, true)])
})

t.test('reasoningTags: <thinking> becomes a reasoning block', async (t) => {
  t.same(p('<thinking>\nplan it\n</thinking>\nThen <read_file><path>a</path></read_file>', { reasoningTags: ['thinking'] }),
    [{ type: 'reasoning', reasoning: 'plan it', partial: false }, text('Then'), tool('read_file', { path: 'a' })])
  t.same(p('<think>hmm', { profile: 'robust' }), [{ type: 'reasoning', reasoning: 'hmm', partial: true }])
  t.same(p('<read_file><path><thinking>x</thinking></path></read_file>', { reasoningTags: ['thinking'] }), [tool('read_file', { path: '<thinking>x</thinking>' })], 'only at top level')
})

t.test('truncation: a call completed by the end of the stream is marked', async (t) => {
  t.same(parseAssistantMessage('<execute_command><command>rm -rf sr', { truncation: true, final: true, idGenerator: counter() }),
    [{ type: 'tool_use', name: 'execute_command', params: { command: 'rm -rf sr' }, partial: false, call_id: 'c1', isNativeToolCall: false, truncated: true }])
  const parser = new BlockParser({ truncation: true, idGenerator: counter() })
  const recs: DiffRecord[] = []
  parser.on('data', (d: DiffRecord) => recs.push(d))
  parser.end('<read_file><path>sr')
  await new Promise((r) => parser.on('end', r))
  t.match(recs.at(-1), { op: 'replace', index: 0, block: { truncated: true, partial: false } }, 'sent as a replace diff')
  t.same(p('<read_file><path>a</path></read_file>', { truncation: true, final: true }), [tool('read_file', { path: 'a' })], 'a closed call is not marked')
})

t.test('lenientTags: white space inside brackets', async (t) => {
  t.same(p('< read_file >\n< path >a.ts</path >\n</ read_file >', { lenientTags: true }), [tool('read_file', { path: 'a.ts' })])
  t.same(p('< read_file >', {}), [text('< read_file >', true)], 'not in the cline profile')
  t.same(p('< read file >', { lenientTags: true }), [text('< read file >', true)], 'never inside a name')
})

t.test('diagnostics: stable codes with offsets', async (t) => {
  const codes = (s: string): [string, number][] => parseWithDiagnostics(s).diagnostics.map((d: Diagnostic) => [d.code, d.offset])
  t.same(codes('Hi <write_file><path>a</path></write_file>'), [['unknown-tool', 3]])
  t.same(codes('<read_file>junk<path>a</path></read_file>'), [['ignored-content', 11]])
  t.same(codes('<read_file><path>a'), [['unclosed-param', 18], ['unclosed-tool', 18]])
  t.same(codes('Let me run.\n<execute_c'), [['truncated-open-tag', 12]])
  t.same(codes('<div>html</div> a < b'), [], 'ordinary markup is not reported')
  t.same(strip(parseAssistantMessage('x <write_file>', { profile: 'robust' })), [text('x <write_file>', true)], 'parseAssistantMessage returns the blocks whatever the profile')
  t.same(strip(parseWithDiagnostics('x <write_file>', { profile: 'robust' }).blocks), strip(parseAssistantMessage('x <write_file>', { profile: 'robust' })), 'parseWithDiagnostics: the same blocks')
  t.same(parseWithDiagnostics('x <write_file>', { diagnostics: false }).diagnostics.map((d) => d.code), ['unknown-tool'], 'and its diagnostics whatever the option says')
  // the stream reports the same diagnostics whatever the chunking, as events and opt-in records
  const s = 'a <write_file> <read_file>junk<path>p</path> more </read_file> <execute_c'
  const whole = [...parseWithDiagnostics(s).diagnostics]
  for (const size of [1, 3, 7]) {
    const parser = new BlockParser({ diagnostics: true, diagnosticRecords: true })
    const events: Diagnostic[] = []
    const records: DiffRecord[] = []
    parser.on('diagnostic', (d: Diagnostic) => events.push(d))
    parser.on('data', (d: DiffRecord) => { if (d.op === 'diagnostic') records.push(d) })
    for (const c of fixedChunks(s, size)) parser.write(c)
    parser.end()
    await new Promise((r) => parser.on('end', r))
    t.same(events, whole, `${size}-byte chunks: same diagnostics as the whole parse`)
    t.same(records, whole.map((d) => ({ op: 'diagnostic', ...d })))
  }
})

t.test('robust keeps every cline result where no option applies', async (t) => {
  const s = 'Plain words, then <read_file>\n<path>src/a.ts</path>\n</read_file>\nand <execute_command><command>ls</command></execute_command>'
  t.same(p(s, { profile: 'robust' }), p(s, {}))
})
