// The suite's copy of the conformance data equals the team's source, when that source is beside
// this checkout (it is not in a clone made elsewhere, where this test has nothing to compare).
import t from 'tap'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const shared = fileURLToPath(new URL('../../shared/conformance/', import.meta.url))
const copy = fileURLToPath(new URL('./fixtures/conformance/', import.meta.url))

for (const name of ['parse.cline.jsonl', 'present-text.cline.jsonl']) {
  t.ok(readFileSync(copy + name, 'utf8').length > 0, `${name}: the suite has its own copy`)
  if (!existsSync(shared + name)) {
    t.comment(`${name}: no ../shared/conformance beside this checkout; nothing to compare`)
    continue
  }
  t.equal(readFileSync(copy + name, 'utf8'), readFileSync(shared + name, 'utf8'), `${name}: the copy equals ../shared`)
}
