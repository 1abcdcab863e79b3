// V8 drops a function's optimised code at a full garbage collection when an object map the code
// was specialised on dies, and the maps of a class's instances die with its last instance. The
// BlockParser (DiffSession), the Presenter and the WritableTaker each keep one instance for the
// life of the process, so that a collection between two messages does not send the next one
// through unoptimised code (behind a Presenter, a 200 KB stream took 14-17 ms instead of 5 after
// every collection; for a plain Writable, see the WritableTaker's keeper). This
// checks it in a child process with V8's natives syntax: the hot functions that were optimised
// before a full collection with no stream open still are after it.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { resolve } from 'node:path'

const probe = resolve('test/helpers/keeper-probe.mjs')
const dist = resolve('dist')

interface Groups { parser: string[]; presenter: string[]; writable: string[] }

t.test('a full GC between messages keeps the parser, the Presenter and the hand-off to a Writable optimised', async (t) => {
  const r = spawnSync(process.execPath, ['--allow-natives-syntax', '--expose-gc', probe, dist], { encoding: 'utf8' })
  t.equal(r.status, 0, r.stderr)
  const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { runs: number; before: Groups; after: Groups }
  for (const group of ['parser', 'presenter', 'writable'] as const) {
    t.ok(out.before[group].length > 0, `V8 optimised a hot function of the ${group} after ${out.runs} messages`)
    t.same(out.after[group].filter((f) => out.before[group].includes(f)), out.before[group],
      `the ${group}'s optimised functions survive the collection (before: ${out.before[group].join(', ')})`)
  }
})
