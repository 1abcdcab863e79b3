// The README's shell recipes run as written: every command of every ```sh block runs (in a
// scratch folder that has the bundled examples/, with `tagstream` on PATH as the built bin), and
// the `# ` lines under a command are its output, stdout and stderr together (`…` stands for any
// text). A recipe that drifts from what the CLI does fails here.
import t from 'tap'
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

interface Step { command: string; expected: string[] }

/** The steps of each sh block: a command (with its `\` continuation lines), then its `# ` lines. */
function recipes(markdown: string): Step[][] {
  const blocks: Step[][] = []
  for (const m of markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gmu)) {
    const steps: Step[] = []
    const lines = m[1]!.split('\n')
    for (let i = 0; i < lines.length; i++) {
      let line = lines[i]!
      if (line.trim() === '') continue
      if (line.startsWith('# ')) {
        steps.at(-1)?.expected.push(line.slice(2))
        continue
      }
      let command = line
      while (line.endsWith('\\') && i + 1 < lines.length) command += '\n' + (line = lines[++i]!)
      steps.push({ command: command.replace(/\s+#\s.*$/u, ''), expected: [] })
    }
    blocks.push(steps)
  }
  return blocks
}

const root = resolve('.')
const bin = join(root, 'dist/examples/cli/main.js')
const hasJq = spawnSync('jq', ['--version']).status === 0
const blocks = recipes(readFileSync('README.md', 'utf8'))

t.ok(blocks.length >= 4, `${blocks.length} sh blocks found`)

for (const [n, steps] of blocks.entries()) {
  const uses = steps.map((s) => s.command).join('\n')
  if (!/\btagstream\b/u.test(uses)) continue // the install/test commands at the top
  t.test(`README sh block ${n + 1}: ${steps[0]!.command.slice(0, 60)}`, { skip: /\bjq\b/u.test(uses) && !hasJq ? 'jq is not installed' : false }, async (t) => {
    const dir = t.testdir({})
    symlinkSync(join(root, 'examples'), join(dir, 'examples'))
    mkdirSync(join(dir, '.bin'))
    writeFileSync(join(dir, '.bin', 'tagstream'), `#!/bin/sh\nexec "${process.execPath}" "${bin}" "$@"\n`)
    chmodSync(join(dir, '.bin', 'tagstream'), 0o755)
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${join(dir, '.bin')}:${process.env.PATH ?? ''}`, NO_COLOR: '1' }
    for (const k of Object.keys(env)) if (k === 'NODE_OPTIONS' || k === 'NODE_V8_COVERAGE' || k.startsWith('_TAPJS_')) delete env[k]
    for (const step of steps) {
      let out: string
      try {
        out = execFileSync('bash', ['-c', `{ ${step.command}\n} 2>&1`], { cwd: dir, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
      } catch (err) {
        t.fail(`${step.command}: exit ${(err as { status?: number }).status}`, { output: (err as { stdout?: string }).stdout })
        continue
      }
      if (step.expected.length === 0) continue
      const want = new RegExp('^' + step.expected.map((l) => l.split('…').map((p) => p.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&')).join('.*')).join('\n') + '\n?$', 'u')
      t.match(out, want, step.command)
    }
  })
}
