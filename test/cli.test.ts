// Tests of the `tagstream` CLI. Most run it in-process through main(argv, io) (test/helpers/cli.ts):
// a child process adds nothing to what they check but its start-up time. A few run the BUILT
// bin, dist/examples/cli/main.js, as a user would: its shebang, exit codes, EPIPE, worker
// threads (test/cli-live.test.ts and test/cli-stats.test.ts have more). CI runs `npm run build`
// before `npm test`; locally, build first (the first test says so if dist is missing).
import t from 'tap'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { applyDiff, counterIds, parseAssistantMessage, type Block, type BlockDiff, type DiffRecord } from '../lib/index.js'
import { CLI, cliEnv, runCli as run, spawnRun, type Run } from './helpers/cli.js'

const LOGS = 'examples/logs'
const HISTORY = `${LOGS}/cline_task_history.json`
const VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version

const records = (stdout: string): DiffRecord[] => stdout.trimEnd().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as DiffRecord)

/** The blocks of each turn of a replay's output. */
function turns(stdout: string): Block[][] {
  const out: Block[][] = []
  for (const r of records(stdout)) {
    if (r.op === 'message') out.push([])
    else if (r.op !== 'end' && r.op !== 'diagnostic') out[out.length - 1] = applyDiff(out[out.length - 1]!, r as BlockDiff)
  }
  return out
}

const reply = 'Reading first.\n<read_file>\n<path>src/a.ts</path>\n</read_file>\n<write_to_file>\n<path>b.ts</path>\n<content>\nx < y\n'

const tmp = mkdtempSync(join(tmpdir(), 'tagstream-cli-'))
t.teardown(() => rmSync(tmp, { recursive: true, force: true }))

t.test('the CLI is built', async (t) => {
  t.ok(existsSync(CLI), `${CLI} exists (run npm run build before the tests)`)
  t.match(readFileSync(CLI, 'utf8'), /^#!\/usr\/bin\/env node\n/, 'with its shebang')
})

t.test('end to end: the built bin, its exit codes and streams, as in-process runs give them', async (t) => {
  const [version, usage, unknown, missing, parsed] = await Promise.all([
    spawnRun(['--version']),
    spawnRun([]),
    spawnRun(['frob']),
    spawnRun(['replay', join(tmp, 'nope.json')]),
    spawnRun(['parse', '--ids', 'counter'], reply),
  ])
  t.same(version, { code: 0, stdout: `${VERSION}\n`, stderr: '' }, '--version reads package.json from the installed place')
  t.equal(usage.code, 2, 'no command: usage, exit 2')
  t.match(usage.stdout, /Usage: tagstream <command>/)
  t.equal(unknown.code, 2)
  t.match(unknown.stderr, /unknown command "frob"/)
  t.notMatch(unknown.stderr, /\n\s+at /, 'no stack trace')
  t.equal(missing.code, 1, 'bad input: exit 1')
  t.match(missing.stderr, /cannot read .*nope\.json: no such file/)
  t.equal(parsed.code, 0)
  t.same(parsed, await run(['parse', '--ids', 'counter'], reply), 'stdin to stdout: the same as in-process')
})

t.test('--version and -v print the version of package.json; --help lists them', async (t) => {
  for (const flag of ['--version', '-v']) t.same(await run([flag]), { code: 0, stdout: `${VERSION}\n`, stderr: '' }, flag)
  t.match((await run(['--help'])).stdout, /-v, --version/)
})

t.test('--help for the command and each subcommand; exit codes of usage errors', async (t) => {
  const top = await run(['--help'])
  t.equal(top.code, 0)
  t.match(top.stdout, /Commands:[\s\S]*parse[\s\S]*replay[\s\S]*record[\s\S]*present[\s\S]*stats/)
  const cmds = ['parse', 'replay', 'record', 'present', 'stats']
  const helps = await Promise.all(cmds.map((cmd) => run([cmd, '--help'])))
  cmds.forEach((cmd, i) => {
    t.equal(helps[i]!.code, 0, `${cmd} --help`)
    t.match(helps[i]!.stdout, new RegExp(`^Usage: tagstream ${cmd}`), `${cmd} --help`)
  })
  t.match((await run(['help', 'stats'])).stdout, /^Usage: tagstream stats/)
  const usage: [string[], RegExp][] = [
    [[], /Usage: tagstream <command>/],
    [['frob'], /unknown command "frob"/],
    [['replay'], /tagstream replay: expected a FILE/],
    [['replay', HISTORY, '--bogus'], /tagstream replay: Unknown option '--bogus'/],
    [['replay', HISTORY, '--speed=-1'], /--speed must be a number >= 0/],
    [['replay', HISTORY, '--format', 'xml'], /--format must be one of chunklog, cline, openai, anthropic/],
    [['replay', HISTORY, '--on-error', 'ignore'], /--on-error must be one of fail, skip/],
    [['parse', '--ids', 'uuid'], /--ids must be one of counter, nanoid/],
    [['parse', '--option', 'turbo'], /unknown --option "turbo"/],
    [['parse', '--option', 'truncation=maybe'], /--option truncation takes true or false/],
    [['parse', '--profile', 'fast'], /--profile must be one of cline, robust/],
    [['parse', '--snapshots', '--final'], /exclude each other/],
    [['replay', HISTORY, '--render', '--final'], /exclude each other/],
    [['replay', HISTORY, '--final', '--snapshots'], /exclude each other/],
    [['parse', 'a', 'b'], /at most one FILE/],
    [['record'], /-o LOG\.jsonl is required/],
    [['stats'], /expected one or more FILEs/],
    [['stats', '--jobs', '0', HISTORY], /--jobs must be an integer >= 1/],
  ]
  const runs = await Promise.all(usage.map(([args]) => run(args)))
  for (const [i, [args, re]] of usage.entries()) {
    const r = runs[i]!
    t.equal(r.code, 2, `exit 2: ${args.join(' ')}`)
    t.match(r.stdout + r.stderr, re, args.join(' '))
    t.notMatch(r.stderr, /\n\s+at /, 'no stack trace')
  }
})

t.test('parse: stdin to NDJSON diffs, --final, --snapshots, deterministic with --ids counter', async (t) => {
  const expected = parseAssistantMessage(reply, { final: true, idGenerator: counterIds() })
  const diffs = await run(['parse', '--ids', 'counter'], reply)
  t.equal(diffs.code, 0)
  t.same(records(diffs.stdout).reduce<Block[]>((b, d) => applyDiff(b, d as BlockDiff), []), expected)
  t.equal((await run(['parse', '--ids', 'counter'], reply)).stdout, diffs.stdout, 'same bytes on a second run')
  const final = await run(['parse', '--final', '--ids', 'counter'], reply)
  t.equal(final.stdout, JSON.stringify(expected) + '\n')
  const snaps = (await run(['parse', '--snapshots', '--ids', 'counter'], reply)).stdout.trimEnd().split('\n')
  t.same(JSON.parse(snaps.at(-1)!), expected)
  const file = join(tmp, 'reply.txt')
  writeFileSync(file, reply)
  t.equal((await run(['parse', '--ids', 'counter', file])).stdout, diffs.stdout, 'a file like stdin')
  const random = records((await run(['parse'], reply)).stdout).find((r) => r.op === 'add' && r.block.type === 'tool_use')
  t.match(random, { block: { call_id: /^[\w-]{8}$/ } }, 'nanoid ids by default')
})

t.test('parse: profile, options and dialect reach the parser', async (t) => {
  const robust = await run(['parse', '--final', '--profile', 'robust'], '<thinking>plan</thinking>\nDo `<read_file>` now.')
  t.same((JSON.parse(robust.stdout) as Block[]).map((b) => b.type), ['reasoning', 'text'])
  const diag = records((await run(['parse', '--option', 'diagnostics'], 'a <write_file><path>x</path></write_file>')).stdout)
  t.ok(diag.some((r) => r.op === 'diagnostic' && r.code === 'unknown-tool'), 'diagnostic records')
  const capped = records((await run(['parse', '--option', 'diagnostics', '--option', 'maxDiagnostics=2'], '<a_b><c_d><e_f><g_h>')).stdout)
  t.same(capped.filter((r) => r.op === 'diagnostic').map((r) => (r as { code: string }).code), ['unknown-tool', 'unknown-tool', 'diagnostics-dropped'], 'maxDiagnostics caps them')
  const dialect = join(tmp, 'dialect.json')
  writeFileSync(dialect, JSON.stringify({ extends: 'cline', tools: ['use_subagent_docs'], params: ['brief'] }))
  const custom = JSON.parse((await run(['parse', '--final', '--ids', 'counter', '--dialect', dialect], '<use_subagent_docs><brief>b</brief></use_subagent_docs>')).stdout) as Block[]
  t.match(custom, [{ type: 'tool_use', name: 'use_subagent_docs', params: { brief: 'b' } }])
  writeFileSync(dialect, JSON.stringify({ tools: ['bad name'], params: [] }))
  const bad = await run(['parse', '--dialect', dialect], 'x')
  t.equal(bad.code, 1)
  t.match(bad.stderr, /dialect\.json: invalid tool name "bad name"/)
})

t.test('replay: every bundled format, framed per turn, byte-identical across runs', async (t) => {
  const expectTurns: Record<string, number> = { 'cline_task_history.json': 5, 'chunk_log.jsonl': 1, 'openai_chat.sse': 1, 'anthropic_messages.sse': 1 }
  for (const [file, n] of Object.entries(expectTurns)) {
    const a = await run(['replay', `${LOGS}/${file}`])
    t.equal(a.code, 0, file)
    t.equal(a.stderr, '', file)
    const recs = records(a.stdout)
    t.equal(recs.filter((r) => r.op === 'message').length, n, `${file}: ${n} turns`)
    t.equal(recs.filter((r) => r.op === 'end').length, n)
    t.equal(recs[0]!.op, 'message')
    t.equal(recs.at(-1)!.op, 'end')
    t.ok(turns(a.stdout).every((bs) => bs.every((b) => !b.partial)), `${file}: every block completed`)
    const b = await run(['replay', '--ids', 'counter', '--speed', '0', `${LOGS}/${file}`])
    t.equal(b.stdout, a.stdout, `${file}: same bytes again`)
  }
  const anthropic = turns((await run(['replay', `${LOGS}/anthropic_messages.sse`])).stdout)[0]!
  t.same(anthropic.map((b) => b.type), ['reasoning', 'text', 'tool_use'], 'thinking_delta became reasoning')
  const forced = await run(['replay', '--format', 'chunklog', `${LOGS}/chunk_log.jsonl`])
  t.equal(forced.stdout, (await run(['replay', `${LOGS}/chunk_log.jsonl`])).stdout, '--format')
  const stdin = await run(['replay', '-'], readFileSync(`${LOGS}/openai_chat.sse`))
  t.equal(stdin.stdout, (await run(['replay', `${LOGS}/openai_chat.sse`])).stdout, 'stdin as -')
})

t.test('replay: the history equals, turn by turn, parseAssistantMessage of each turn', async (t) => {
  const got = turns((await run(['replay', HISTORY])).stdout)
  const history = JSON.parse(readFileSync(HISTORY, 'utf8')) as { role: string; content: { type: string; text?: string; thinking?: string }[] }[]
  const ids = counterIds()
  const expected = history.filter((m) => m.role === 'assistant').map((m) => [
    ...m.content.filter((p) => p.type === 'thinking').map((p): Block => ({ type: 'reasoning', reasoning: p.thinking!.trim(), partial: false })),
    ...parseAssistantMessage(m.content.filter((p) => p.type === 'text').map((p) => p.text).join('\n\n'), { final: true, idGenerator: ids }),
  ])
  t.same(got, expected)
  const final = (await run(['replay', '--final', HISTORY])).stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { id: string; meta: unknown; blocks: Block[] })
  t.same(final.map((f) => f.blocks), expected, '--final: the same blocks, one line per turn')
  t.same(final.map((f) => f.id), ['turn-1', 'turn-2', 'turn-3', 'turn-4', 'turn-5'])
  t.same(final[0]!.meta, { index: 1 })
  // --snapshots: between each turn's markers, block arrays only; the last is the turn's result,
  // and every one is what the turn's diffs so far add up to
  const lines = (await run(['replay', '--snapshots', HISTORY])).stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as unknown)
  // the states the turn's diffs pass through, in order; the snapshots must be some of them, in order
  const states: string[][] = []
  let blocks: Block[] = []
  for (const r of records((await run(['replay', HISTORY])).stdout)) {
    if (r.op === 'message') {
      states.push([])
      blocks = []
    } else if (r.op !== 'end' && r.op !== 'diagnostic') {
      blocks = applyDiff(blocks, r as BlockDiff)
      states[states.length - 1]!.push(JSON.stringify(blocks))
    }
  }
  const lastOfTurn: Block[][] = []
  let current: Block[] | null = null
  let turn = -1
  let at = 0
  let snapshots = 0
  let outOfOrder = 0
  for (const l of lines) {
    if (Array.isArray(l)) {
      snapshots++
      const found = states[turn]!.indexOf(JSON.stringify(l), at)
      if (found < 0) outOfOrder++
      else at = found + 1
      current = l as Block[]
    } else if ((l as { op: string }).op === 'message') {
      turn++
      at = 0
    } else if ((l as { op: string }).op === 'end') {
      lastOfTurn.push(current ?? [])
      current = null
    }
  }
  t.same(lastOfTurn, expected, '--snapshots: the last array of each turn is its blocks')
  t.equal(outOfOrder, 0, `each of the ${snapshots} snapshots is a state the turn's diffs reach, in their order`)
  t.ok(snapshots > 5 * final.length, 'many snapshots per turn, as the text streamed')
  t.same(lines.filter((l) => !Array.isArray(l)).map((l) => (l as { op: string }).op), final.flatMap(() => ['message', 'end']), 'framed by the same markers')
})

t.test('replay: a malformed line is fatal naming file and line, or skipped with a warning', async (t) => {
  const log = join(tmp, 'bad.jsonl')
  writeFileSync(log, '{"meta":{}}\n{"t":0,"text":"Hi "}\n\n{"t":1,"text":"<read_file>"\n{"t":2,"text":"there"}\n')
  const fail = await run(['replay', log])
  t.equal(fail.code, 1)
  t.match(fail.stderr, new RegExp(`^tagstream: ${log.replace(/[.\\/]/g, '\\$&')}: line 4: not JSON`))
  t.notMatch(fail.stderr, /\n\s+at /, 'no stack trace')
  t.same(records(fail.stdout).map((r) => r.op), ['message', 'add'], 'the output stops at the bad line')
  const skip = await run(['replay', '--on-error', 'skip', log])
  t.equal(skip.code, 0)
  t.match(skip.stderr, /warning: .*bad\.jsonl: line 4: not JSON.*\(skipped\)/)
  t.same(turns(skip.stdout), [[{ type: 'text', content: 'Hi there', partial: false }]])
  const sse = join(tmp, 'bad.sse')
  writeFileSync(sse, 'data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\ndata: {oops\n\n')
  const ev = await run(['replay', sse])
  t.equal(ev.code, 1)
  t.match(ev.stderr, /bad\.sse: event 2: data is not JSON/)
  const text = join(tmp, 'plain.txt')
  writeFileSync(text, 'Hello <read_file>')
  const unknown = await run(['replay', text])
  t.equal(unknown.code, 1)
  t.match(unknown.stderr, /plain\.txt: line 1: not a log tagstream knows/)
  const missing = await run(['replay', join(tmp, 'nope.json')])
  t.equal(missing.code, 1)
  t.match(missing.stderr, /cannot read .*nope\.json: no such file/)
})

t.test('EPIPE: a reader that leaves early (| head) ends the replay quietly', async (t) => {
  const big = join(tmp, 'big.jsonl')
  const line = JSON.stringify({ t: 0, text: 'word <read_file><path>a.ts</path></read_file> ' }) + '\n'
  writeFileSync(big, ('{"meta":{}}\n' + line.repeat(200)).repeat(100))
  const r = await new Promise<Run>((resolve) => {
    const child = spawn(process.execPath, [CLI, 'replay', big], { stdio: ['ignore', 'pipe', 'pipe'], env: cliEnv() })
    let err = ''
    child.stderr.on('data', (b: Buffer) => (err += b.toString()))
    child.stdout.once('data', () => child.stdout.destroy()) // like head: read a little, close the pipe
    child.on('close', (code) => resolve({ code, stdout: '', stderr: err }))
  })
  t.equal(r.code, 0)
  t.equal(r.stderr, '')
})

t.test('record: stdin to stdout unchanged, and a chunk log that replays to the same blocks', async (t) => {
  const log = join(tmp, 'rec.jsonl')
  const input = Buffer.from(reply + ' é😀')
  const r = await run(['record', '-o', log], input)
  t.equal(r.code, 0)
  t.ok(Buffer.from(r.stdout).equals(input), 'stdout is stdin')
  const lines = readFileSync(log, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
  t.match(lines[0], { meta: { source: 'tagstream record' } })
  t.ok(lines.slice(1).every((l) => typeof l.t === 'number' && typeof l.text === 'string'))
  t.equal(lines.slice(1).map((l) => l.text).join(''), input.toString('utf8'))
  t.same(turns((await run(['replay', log])).stdout), [parseAssistantMessage(input.toString('utf8'), { final: true, idGenerator: counterIds() })])
  const bad = await run(['record', '-o', join(tmp, 'no/such/dir.jsonl')], 'x')
  t.equal(bad.code, 1)
  t.match(bad.stderr, /no such file/)
})

t.test('replay --render: text and completed tool calls, colours only when asked', async (t) => {
  const plain = await run(['replay', '--render', HISTORY])
  t.equal(plain.code, 0)
  t.match(plain.stdout, /── turn-1 /)
  t.match(plain.stdout, /I'll start by reading the store to see how ids are generated\.\n⏺ read_file \(call_1\)\n {2}path: src\/store\.ts/)
  t.match(plain.stdout, /thinking: The fix and the test are in place\./)
  t.notMatch(plain.stdout, /\u001b\[/, 'no colour in a pipe')
  t.match((await run(['replay', '--render', '--color', HISTORY])).stdout, /\u001b\[1;36m⏺ read_file/)
})

t.test('stats: counts per file and in total; --jobs 2 counts the same', async (t) => {
  const files = ['cline_task_history.json', 'chunk_log.jsonl', 'openai_chat.sse', 'anthropic_messages.sse'].map((f) => `${LOGS}/${f}`)
  const one = await run(['stats', '--json', ...files])
  t.equal(one.code, 0)
  const s = JSON.parse(one.stdout) as { files: Record<string, unknown>[]; total: Record<string, unknown> }
  t.match(s.files[0], { file: files[0], format: 'cline', turns: 5, toolCallsTotal: 5, toolCalls: { write_to_file: 2, read_file: 1, execute_command: 1, attempt_completion: 1 } })
  t.match(s.total, { turns: 8, toolCallsTotal: 9, unclosedCalls: 0, truncatedCalls: 0 })
  // worker threads: the built bin, in a process of its own
  const two = JSON.parse((await spawnRun(['stats', '--json', '--jobs', '2', ...files])).stdout) as typeof s
  const counts = (x: typeof s): unknown => x.files.map(({ parseMs, wallMs, ...rest }) => rest)
  t.same(counts(two), counts(s), 'workers count the same, in the same order')
  const odd = join(tmp, 'odd.jsonl')
  writeFileSync(odd, JSON.stringify({ t: 0, text: 'x <write_file><path>a</path></write_file> <read_file><path>b' }) + '\n' + JSON.stringify({ meta: {} }) + '\n' + JSON.stringify({ t: 0, text: 'y <execute_c' }) + '\n')
  const table = await run(['stats', odd])
  t.match(table.stdout, /turns 2 · tool calls 1 · unclosed 1 · truncated 1 · unknown tags 1/)
  t.match(table.stdout, /unknown: write_file 1/)
  const bad = await spawnRun(['stats', '--jobs', '2', odd, join(tmp, 'bad.jsonl')])
  t.equal(bad.code, 1, 'a bad file fails the run, from a worker too')
  t.match(bad.stderr, /bad\.jsonl: line 4/)
})

t.test('present: the Presenter demo on each turn of a log, answers from stdin', async (t) => {
  const r = await run(['present', '--no-color', HISTORY], 'y\nn\n')
  t.equal(r.code, 0)
  t.match(r.stdout, /── turn-1[\s\S]*Run read_file \(read-only\)\? \[y\/N\] y[\s\S]*\[dry run\] would read src\/store\.ts/)
  t.match(r.stdout, /── turn-2[\s\S]*Run write_to_file\? \[y\/N\] n[\s\S]*denied/)
  const text = await run(['present', '--yes', '--no-color'], 'Hello\n<read_file><path>a.ts</path></read_file>')
  t.equal(text.code, 0)
  t.match(text.stdout, /Hello[\s\S]*\[dry run\] would read a\.ts/)
  // provider reasoning (Anthropic thinking) is shown before the text, marked as such
  const sse = await run(['present', '--yes', '--no-color', `${LOGS}/anthropic_messages.sse`])
  t.equal(sse.code, 0)
  t.match(sse.stdout, /── turn-1 ─+\nthinking: The user wants the todo ids fixed\.[^\n]*\nI'll read the store first\.\n⏺ read_file/)
})
