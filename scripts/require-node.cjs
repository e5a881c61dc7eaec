// Runs before `npm start` and `npm test` on whatever `node` npm found: plain CommonJS, so that an
// old Node reads it too. `npm install` brings Node 24 (the optional `node` package); where that
// package has no build for the platform, the machine's own Node must be recent enough.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  console.error(
    `comanda needs Node.js 22.18 or newer (24 recommended) and found ${process.versions.node}: ` +
      'run `npm install` first (it brings Node 24 where the platform has a build), or install Node 24.',
  );
  process.exit(1);
}
