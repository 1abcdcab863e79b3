// Run by test/keepers.test.ts as `node --allow-natives-syntax --expose-gc keeper-probe.mjs DIST`:
// streams small messages until V8 has optimised the hot functions of the BlockParser and the
// Presenter (TurboFan), runs a full garbage collection with no stream open, and prints which of
// those functions are still optimised, as JSON.
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { pathToFileURL } from 'node:url'
import { join } from 'node:path'

const dist = process.argv[2]
const { createBlockParser, createPresenter, Presenter } = await import(pathToFileURL(join(dist, 'index.js')).href)
const { DiffSession } = await import(pathToFileURL(join(dist, 'streams', 'session.js')).href)
const { Field } = await import(pathToFileURL(join(dist, 'parse', 'field.js')).href)
const { Display } = await import(pathToFileURL(join(dist, 'present', 'display.js')).href)
const { Snapshot } = await import(pathToFileURL(join(dist, 'present', 'snapshot.js')).href)

const msg = 'Some text to show.\n<write_to_file>\n<path>a.ts</path>\n<content>\n' + 'const x = 1\n'.repeat(300) +
  '</content>\n</write_to_file>\nDone.'
const chunks = msg.match(/[\s\S]{1,5}/g)
// which of them V8 compiles on its own (rather than inlined into a caller) varies: each group
// needs one
const groups = {
  parser: { 'DiffSession.push': DiffSession.prototype.push, 'Field.pushAt': Field.prototype.pushAt },
  presenter: { 'Presenter.grow': Presenter.prototype.grow, 'Presenter.write': Presenter.prototype.write, 'Display.show': Display.prototype.show, 'Snapshot.append': Snapshot.prototype.append },
}
// V8's GetOptimizationStatus bit for TurboFan code; natives syntax only parses where the flag is on
const TURBOFAN = 64
const status = (f) => eval('%GetOptimizationStatus(f)')
const optimised = (group) => Object.keys(groups[group]).filter((k) => (status(groups[group][k]) & TURBOFAN) !== 0)

let runs = 0
while (runs < 300 || (runs < 5000 && (optimised('parser').length === 0 || optimised('presenter').length === 0))) {
  await pipeline(Readable.from(chunks), createBlockParser(),
    createPresenter({ say() {}, onToolPartial() {}, executeTool: () => '', parallelToolCalls: true }))
  runs++
}
const before = { parser: optimised('parser'), presenter: optimised('presenter') }
await new Promise((r) => setTimeout(r, 10))
globalThis.gc()
console.log(JSON.stringify({ runs, before, after: { parser: optimised('parser'), presenter: optimised('presenter') } }))
