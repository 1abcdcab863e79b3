// Issue 12 "every bad input named": the exact message and exit code of the CLI for each kind of
// bad input (1) and bad usage (2). They spawn the BUILT command (npm run build first).
import t from 'tap'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const CLI = 'dist/examples/cli/main.js'

interface Run { code: number | null; stdout: string; stderr: string }

// the children run as a user's would, without tap's hooks and coverage
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_OPTIONS' && k !== 'NODE_V8_COVERAGE' && !k.startsWith('_TAPJS_')))

function run(args: string[], input?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...env, NO_COLOR: '' } })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (b: Buffer) => out.push(b))
    child.stderr.on('data', (b: Buffer) => err.push(b))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }))
    child.stdin.on('error', () => {})
    child.stdin.end(input)
  })
}

const tmp = mkdtempSync(join(tmpdir(), 'tagstream-cli-errors-'))
t.teardown(() => rmSync(tmp, { recursive: true, force: true }))
const file = (name: string, text: string): string => {
  const f = join(tmp, name)
  writeFileSync(f, text)
  return f
}

const EXPECTED = 'expected a chunk log (JSONL lines {"t", "text"}), a Cline history (a JSON array of messages), or an OpenAI or Anthropic SSE capture; --format picks one (chunklog, cline, openai, anthropic)'

t.test('the CLI is built', async (t) => {
  t.ok(existsSync(CLI), `${CLI} exists (run npm run build before the tests)`)
})

t.test('bad input: exit 1, the exact message naming the file or stdin and the place', async (t) => {
  const empty = file('empty.jsonl', '')
  const blank = file('blank.json', '  \n\n')
  const pkg = file('package.json', JSON.stringify({ name: 'x', version: '1.0.0', scripts: { test: 'tap' } }, null, 2) + '\n')
  const cut = file('cut.json', JSON.stringify([{ role: 'assistant', content: 'one' }, { role: 'assistant', content: 'two' }]).slice(0, -5))
  const cases: [string[], string | undefined, string][] = [
    [['replay', empty], undefined, `tagstream: ${empty}: empty input\n`],
    [['replay', blank], undefined, `tagstream: ${blank}: empty input\n`],
    [['replay', '-'], '', 'tagstream: <stdin>: empty input\n'],
    [['replay', '--format', 'chunklog', '-'], '', 'tagstream: <stdin>: empty input\n'],
    [['replay', '-'], '{"foo":1}\n', 'tagstream: <stdin>: line 1: "t" is missing (a chunk log line is {"t": <ms>, "text": "…"} or {"meta": {…}})\n'],
    [['replay', '-'], '{"t":0,"text":"a"}\n{"t":"soon","text":"b"}\n', 'tagstream: <stdin>: line 2: "t" must be a number of milliseconds >= 0, got a string "soon"\n'],
    [['replay', '-'], '{"t":0,"txt":"a"}\n', 'tagstream: <stdin>: line 1: expected a string "text" (or "reasoning"); it has neither\n'],
    [['replay', pkg], undefined, `tagstream: ${pkg}: a JSON document, not a log tagstream knows: ${EXPECTED}\n`],
    [['replay', '-'], 'Hello <read_file>\n', `tagstream: <stdin>: line 1: not a log tagstream knows: ${EXPECTED}\n`],
    [['replay', '-'], '[{"role":"assistant"}]', 'tagstream: <stdin>: messages[0]: "content" is missing (a message is {"role", "content"})\n'],
    [['replay', '-'], '[{"content":"hi"}]', 'tagstream: <stdin>: messages[0]: "role" is missing (a message is {"role", "content"})\n'],
    [['stats', empty], undefined, `tagstream: ${empty}: empty input\n`],
    [['stats', '--format', 'cline', pkg], undefined, `tagstream: ${pkg}: line 1: a Cline history is a JSON array of messages, got an object\n`],
    [['replay', join(tmp, 'nope.json')], undefined, `tagstream: cannot read ${join(tmp, 'nope.json')}: no such file\n`],
  ]
  for (const [args, input, message] of cases) {
    const r = await run(args, input)
    t.equal(r.stderr, message, args.join(' '))
    t.equal(r.code, 1, `${args.join(' ')}: exit 1`)
  }
  // a cut history: its complete turn comes out before the error
  const r = await run(['replay', cut])
  t.equal(r.stderr, `tagstream: ${cut}: line 1: invalid JSON: the input ends inside the history, cut short? (Parser has expected a string value)\n`)
  t.equal(r.code, 1)
  t.match(r.stdout, /\{"op":"end","id":"turn-1"\}/, 'turn-1 came out whole')
})

t.test('bad usage: exit 2, and the hint points at the command\'s own --help', async (t) => {
  const cases: [string[], string][] = [
    [['parse', '--profile', 'fast'], 'tagstream parse: --profile must be one of cline, robust, got "fast"\nTry \'tagstream parse --help\'.\n'],
    [['replay', 'x.json', '--speed', 'fast'], 'tagstream replay: --speed must be a number >= 0, got "fast"\nTry \'tagstream replay --help\'.\n'],
    [['replay', 'x.json', '--option', 'nope'], 'tagstream replay: unknown --option "nope" (codeFences, decodeEntities, hidePartialTags, greedyWhileStreaming, truncation, lenientTags, diagnostics, reasoningTags)\nTry \'tagstream replay --help\'.\n'],
    [['stats', '--jobs', '0', 'x.json'], 'tagstream stats: --jobs must be an integer >= 1, got "0"\nTry \'tagstream stats --help\'.\n'],
    [['replay', '--bogus'], 'tagstream replay: Unknown option \'--bogus\'\nTry \'tagstream replay --help\'.\n'],
  ]
  for (const [args, message] of cases) {
    const r = await run(args)
    t.equal(r.stderr, message, args.join(' '))
    t.equal(r.code, 2, `${args.join(' ')}: exit 2`)
  }
})
