// The CLI with native tool calls (SPEC 8a): replay (NDJSON, --final, --render), present, stats.
// Runs the built bin: `npm run build` first.
import t from 'tap'
import { runCli } from './helpers/cli.js'

const DIR = 'test/fixtures/native/'

t.test('replay --final: native blocks with the provider ids, whatever --ids says', async (t) => {
  for (const ids of ['counter', 'nanoid']) {
    const r = await runCli(['replay', '--final', '--speed', '0', '--ids', ids, DIR + 'openai_tools.sse'])
    t.equal(r.code, 0, r.stderr)
    const turns = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { blocks: { type: string; call_id?: string; isNativeToolCall?: boolean; truncated?: boolean }[] })
    t.same(turns[0]!.blocks.map((b) => b.call_id ?? b.type), ['text', 'call_R1', 'call_W2', 'call_L3'], `--ids ${ids}`)
    t.same(turns[1]!.blocks[1], { type: 'tool_use', name: 'write_to_file', params: { path: 'big.txt', content: 'first line\nsecond li' }, partial: false, call_id: 'call_C4', isNativeToolCall: true, truncated: true })
  }
})

t.test('replay: the NDJSON diffs grow a string argument by appends; diagnostics with --option diagnostics', async (t) => {
  const r = await runCli(['replay', '--speed', '0', '--option', 'diagnostics', DIR + 'anthropic_tools.sse'])
  t.equal(r.code, 0, r.stderr)
  const recs = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
  t.same(recs.filter((x) => x.index === 2 && (x.op === 'set' || x.op === 'append')).map((x) => x.op === 'set' ? ['set', x.path, x.value] : ['append', x.path, x.text]), [
    ['set', 'params.path', 'C:'], ['append', 'params.path', '\\work\\src\\'], ['append', 'params.path', 'main.rs'],
    ['set', 'params.note', ''], ['append', 'params.note', '\u{1F680}'],
  ])
  t.match(recs.filter((x) => x.op === 'diagnostic'), [{ code: 'invalid-tool-arguments', message: /toolu_02A/ }])
  const again = await runCli(['replay', '--speed', '0', '--option', 'diagnostics', DIR + 'anthropic_tools.sse'])
  t.equal(again.stdout, r.stdout, 'deterministic')
})

t.test('replay --render shows native calls, and says a cut one would not run', async (t) => {
  const r = await runCli(['replay', '--render', '--no-color', '--speed', '0', DIR + 'anthropic_tools.sse'])
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout, /⏺ read_file \(toolu_01A, native\)\n  path: C:\\work\\src\\main\.rs\n  note: \u{1F680}/u)
  t.match(r.stdout, /⏺ list_code_definition_names \(toolu_01C, native\)\n/)
  t.match(r.stdout, /⏺ write_to_file \(toolu_02A, native\) arguments incomplete or not an object: would not run/)
})

t.test('present runs native calls through the same executor, never a cut one', async (t) => {
  const r = await runCli(['present', '--no-color', '--speed', '0', DIR + 'cline_history_tools.json'], 'y\ny\n')
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout, /⏺ write_to_file \(native\) path: README\.md/)
  t.match(r.stdout, /\[dry run\] would write 4 lines \(\d+ bytes\) to README\.md/)
  t.match(r.stdout, /⏺ list_files \(native\) path: \., recursive: true/)
  t.notMatch(r.stdout, /would report the task done/, 'the call whose input is not an object is never run')
  const cut = await runCli(['present', '--yes', '--no-color', '--speed', '0', DIR + 'openai_tools.sse'])
  t.match(cut.stdout, /write_to_file call_C4: error — Tool \[write_to_file\] was not executed/)
  t.notMatch(cut.stdout, /would write \d+ lines \(\d+ bytes\) to big\.txt/)
})

t.test('stats counts native calls apart from tag calls', async (t) => {
  const r = await runCli(['stats', '--json', DIR + 'openai_tools.sse', DIR + 'anthropic_tools.sse', DIR + 'cline_history_tools.json', 'examples/logs/openai_chat.sse'])
  t.equal(r.code, 0, r.stderr)
  const doc = JSON.parse(r.stdout) as { files: Record<string, unknown>[]; total: Record<string, unknown> }
  t.match(doc.files[0], { nativeCalls: { read_file: 1, write_to_file: 2, list_files: 1 }, nativeCallsTotal: 4, invalidNativeCalls: 1, toolCallsTotal: 0 })
  t.match(doc.files[1], { nativeCallsTotal: 4, invalidNativeCalls: 1 })
  t.match(doc.files[2], { nativeCalls: { write_to_file: 1, list_files: 1, attempt_completion: 1 }, invalidNativeCalls: 1 })
  t.match(doc.files[3], { nativeCallsTotal: 0, toolCallsTotal: 1 })
  t.match(doc.total, { nativeCallsTotal: 11, invalidNativeCalls: 3, toolCallsTotal: 1 })
  const text = await runCli(['stats', DIR + 'openai_tools.sse'])
  t.match(text.stdout, /native calls 4 \(1 invalid\)/)
  t.match(text.stdout, /native: list_files 1, read_file 1, write_to_file 2/)
  // a --merge input written before these figures existed reads them as none
  const old = '{"kind":"tagstream-stats","version":1,"files":[],"total":{"fileCount":1,"format":"cline","bytes":1,"turns":1,"textBytes":1,"reasoningBytes":0,"toolCalls":{},"toolCallsTotal":0,"unclosedCalls":0,"truncatedCalls":0,"unknownTags":{},"parseMs":1,"wallMs":1,"skipped":0}}'
  const merged = await runCli(['stats', '--merge', '--json'], [old, JSON.stringify(doc)].join('\n'))
  t.equal(merged.code, 0, merged.stderr)
  t.match(JSON.parse(merged.stdout).total, { nativeCallsTotal: 11, invalidNativeCalls: 3, fileCount: 5 })
})
