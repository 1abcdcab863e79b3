// lib/parse/intern.ts: a param's diff path is internalized once, so that a consumer comparing it
// with the last path (the Presenter's Snapshot, on every append) compares identities. Checked with
// V8's natives syntax in a child process, on the appends' paths as a BlockParser emits them.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { pathToFileURL } from 'node:url'
import { resolve } from 'node:path'
import { intern } from '../lib/parse/intern.js'

t.test('intern returns a string equal to its argument, whatever it is', async (t) => {
  for (const s of ['params.path', 'params.__proto__', '__proto__', 'params.' + 'x'.repeat(300), '', 'params.\u00e9\u{1f600}', '7']) {
    t.equal(intern(s), s)
  }
})

t.test('the param paths of the appends a BlockParser emits are internalized strings (natives syntax)', async (t) => {
  // (appends stream a value, one a chunk; a param's `set`s, once or twice a param, come from the
  // generic diff and need not be)
  const dist = pathToFileURL(resolve('dist/index.js')).href
  const internUrl = pathToFileURL(resolve('dist/parse/intern.js')).href
  const script = `
    const { createBlockParser } = await import(${JSON.stringify(dist)})
    const { intern } = await import(${JSON.stringify(internUrl)})
    const made = 'params.' + ['co', 'ntent'].join('')
    const paths = []
    const p = createBlockParser()
    p.on('data', (d) => { if (d.op === 'append' && d.path.startsWith('params.')) paths.push(d.path) })
    const m = '<write_to_file><path>a.ts</path><content>x = 1\\n'
    for (let i = 0; i < m.length; i += 3) p.write(m.slice(i, i + 3))
    p.end()
    await new Promise((r) => p.on('end', r))
    console.log(JSON.stringify({ made: %IsInternalizedString(made), interned: %IsInternalizedString(intern(made)), paths: paths.length, all: paths.every((s) => %IsInternalizedString(s)) }))
  `
  const r = spawnSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', script], { encoding: 'utf8' })
  t.equal(r.status, 0, r.stderr)
  const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { made: boolean; interned: boolean; paths: number; all: boolean }
  t.equal(out.made, false, 'a string made by + is not internalized (else this test proves nothing)')
  t.equal(out.interned, true)
  t.ok(out.paths > 3, `param appends seen (${out.paths})`)
  t.equal(out.all, true, 'every param path of an append is internalized')
})
