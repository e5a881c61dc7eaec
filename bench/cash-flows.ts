// The cash-flow rows of the benchmark (bench/run.ts: scenarios-finance.ts), filters included, with
// run.ts's options (100,000 / 1,000,000 / dense data sets); writes bench/results/partial.md.
process.argv.splice(2, 0, '--all', '--only', '^cash-flows-');
await import('./run.ts');
