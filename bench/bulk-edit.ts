// The write rows of the benchmark (bench/run.ts: scenarios-catalog.ts), PUT /v1/products/bulk of
// 100 products among them, with run.ts's options; writes bench/results/partial.md.
process.argv.splice(2, 0, '--only', '^(products-bulk|product-put|availability)$');
await import('./run.ts');
