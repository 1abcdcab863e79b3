// Run by test/keepers.test.ts as `node --allow-natives-syntax --expose-gc keeper-probe.mjs DIST`:
// streams small messages until V8 has optimised the hot functions of the BlockParser, of the
// Presenter, and of a BlockParser handing its records to a plain Writable (TurboFan), runs a full
// garbage collection with no stream open, and prints which of those functions are still
// optimised, as JSON.
import { Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { pathToFileURL } from 'node:url'
import { join } from 'node:path'

const dist = process.argv[2]
const { createBlockParser, createPresenter, Presenter } = await import(pathToFileURL(join(dist, 'index.js')).href)
const { DiffSession } = await import(pathToFileURL(join(dist, 'streams', 'session.js')).href)
const { Field } = await import(pathToFileURL(join(dist, 'parse', 'field.js')).href)
const { Display } = await import(pathToFileURL(join(dist, 'present', 'display.js')).href)
const { Snapshot } = await import(pathToFileURL(join(dist, 'present', 'snapshot.js')).href)
const { WritableTaker } = await import(pathToFileURL(join(dist, 'streams', 'writable-taker.js')).href)
const { ParserOutput } = await import(pathToFileURL(join(dist, 'streams', 'parser-output.js')).href)

const msg = 'Some text to show.\n<write_to_file>\n<path>a.ts</path>\n<content>\n' + 'const x = 1\n'.repeat(300) +
  '</content>\n</write_to_file>\nDone.'
const chunks = msg.match(/[\s\S]{1,5}/g)
// which of them V8 compiles on its own (rather than inlined into a caller) varies: each group
// needs one
const groups = {
  parser: { 'DiffSession.push': DiffSession.prototype.push, 'Field.pushAt': Field.prototype.pushAt },
  presenter: { 'Presenter.grow': Presenter.prototype.grow, 'Presenter.growBy': Presenter.prototype.growBy, 'Presenter.offerAppend': Presenter.prototype.offerAppend, 'Presenter.write': Presenter.prototype.write, 'Display.show': Display.prototype.show, 'Snapshot.append': Snapshot.prototype.append, 'ParserOutput.append': ParserOutput.prototype.append },
  // a BlockParser piped into a plain object-mode Writable hands it each record through a
  // WritableTaker, which the stream drops when it ends
  writable: { 'WritableTaker.offer': WritableTaker.prototype.offer, 'DiffSession.resumeDiffs': DiffSession.prototype.resumeDiffs },
}
const GROUPS = Object.keys(groups)
// V8's GetOptimizationStatus bit for TurboFan code; natives syntax only parses where the flag is on
const TURBOFAN = 64
const status = (f) => eval('%GetOptimizationStatus(f)')
const optimised = (group) => Object.keys(groups[group]).filter((k) => (status(groups[group][k]) & TURBOFAN) !== 0)

let runs = 0
while (runs < 300 || (runs < 5000 && GROUPS.some((g) => optimised(g).length === 0))) {
  await pipeline(Readable.from(chunks), createBlockParser(),
    createPresenter({ say() {}, onToolPartial() {}, executeTool: () => '', parallelToolCalls: true }))
  const parser = createBlockParser()
  await pipeline(Readable.from(chunks), parser, new Writable({ objectMode: true, write(_d, _e, cb) { cb() } }))
  // the method that hands each record over (ParserOutput's, read through a parser's session); the
  // parser is kept, its taker was dropped when the stream ended
  groups.writable['BlockParser record'] = parser.session.out.record
  runs++
}
const all = () => Object.fromEntries(GROUPS.map((g) => [g, optimised(g)]))
const before = all()
await new Promise((r) => setTimeout(r, 10))
globalThis.gc()
console.log(JSON.stringify({ runs, before, after: all() }))
