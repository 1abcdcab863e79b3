// What `npm pack` ships: every source map it contains names sources that are shipped too (so a
// stack trace or a debugger in an installed copy leads to real lines), the licence, the bin and
// the declarations. Reads the built dist/ (npm test builds first).
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'

interface Packed { files: { path: string }[] }
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
// --ignore-scripts: the prepack build already ran as part of npm test
const out = execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
const files = new Set((JSON.parse(out) as Packed[])[0]!.files.map((f) => f.path))
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { bin: Record<string, string>; types: string; license: string }

t.test('the licence, the bin, the types and the docs are packed', async (t) => {
  t.ok(files.has('LICENSE'), 'LICENSE')
  t.match(readFileSync('LICENSE', 'utf8'), new RegExp(`^${pkg.license} License`), 'the licence package.json names')
  for (const bin of Object.values(pkg.bin)) t.ok(files.has(normalize(bin)), `bin ${bin}`)
  t.ok(files.has(normalize(pkg.types)), `types ${pkg.types}`)
  for (const doc of ['README.md', 'ARCHITECTURE.md']) t.ok(files.has(doc), doc)
  t.notOk([...files].some((f) => f.includes('tsbuildinfo')), 'no incremental build state')
})

t.test('every packed source map resolves to packed sources', async (t) => {
  const maps = [...files].filter((f) => f.endsWith('.map'))
  t.ok(maps.length > 40, `${maps.length} maps (declaration maps included)`)
  const missing: string[] = []
  for (const map of maps) {
    const m = JSON.parse(readFileSync(map, 'utf8')) as { sources: string[]; sourceRoot?: string }
    t.ok(files.has(map.replace(/\.map$/u, '')), `${map} sits beside its file`)
    for (const s of m.sources) {
      const src = normalize(join(dirname(map), m.sourceRoot ?? '', s))
      if (!files.has(src)) missing.push(`${map} -> ${src}`)
    }
  }
  t.same(missing, [], 'no map names a source the package lacks')
})
