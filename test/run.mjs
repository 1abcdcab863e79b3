#!/usr/bin/env node
// Runs the tap suite, passing its TAP output through, and ends with the line CI reads:
// "N passed, N failed". The exit code is tap's (failures and coverage thresholds included).
import { spawn } from 'node:child_process'

const args = ['tap', '--reporter=tap', ...process.argv.slice(2)]
const child = spawn('npx', args, { stdio: ['ignore', 'pipe', 'inherit'] })
let tail = ''
child.stdout.on('data', (buf) => {
  process.stdout.write(buf)
  tail = (tail + buf.toString('utf8')).slice(-4096)
})
child.on('close', (code, signal) => {
  // tap's own summary: "# { total: 12, pass: 11, fail: 1, skip: 0 }"
  const m = /# \{ total: (\d+)(?:, pass: (\d+))?(?:, fail: (\d+))?/u.exec(tail)
  const pass = m ? Number(m[2] ?? 0) : 0
  let fail = m ? Number(m[3] ?? 0) : 0
  if (!m || (code !== 0 && fail === 0)) fail += 1 // tap failed for another reason (coverage, crash)
  if (code !== 0 && m && Number(m[3] ?? 0) === 0) console.log(`# tap exited ${code ?? signal} with no failed test: see the coverage table above`)
  console.log(`${pass} passed, ${fail} failed`)
  process.exit(code ?? 1)
})
