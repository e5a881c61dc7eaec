// How `comanda import` (and the fiscal simulator's --data) reads a file: UTF-8 JSON as an
// operator's export gives it (a BOM, CRLF line ends), and a clear error for anything else, never a
// value silently altered.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CommandError } from '../../src/admin/commands.ts';
import { readJsonFile } from '../../src/cli/database-commands.ts';
import { tempDir } from './cli-process.ts';

const DATA = { restaurants: [{ id: 1, name: 'Café São João' }] };

test('reading an import file', async (t) => {
  const dir = tempDir(t);
  const file = (name: string, bytes: Buffer | string) => {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return path;
  };
  const refused = (path: string) => {
    const err = (() => {
      try {
        readJsonFile(path);
      } catch (e) {
        return e;
      }
      assert.fail(`${path} was read`);
    })();
    assert.ok(err instanceof CommandError, `not a CommandError: ${err}`);
    return err.message;
  };

  await t.test('UTF-8 with a byte order mark and CRLF line ends is read as it is', () => {
    const text = JSON.stringify(DATA, null, 2).replaceAll('\n', '\r\n');
    assert.deepEqual(readJsonFile(file('bom.json', `\uFEFF${text}`)), DATA);
  });

  await t.test('a Latin-1 file is refused, naming where, not read with its accents replaced', () => {
    const latin1 = Buffer.from(`{\n  "restaurants": [{ "id": 1, "name": "Caf\u00e9" }]\n}\n`, 'latin1');
    const path = file('latin1.json', latin1);
    assert.equal(
      refused(path),
      `${path} is not UTF-8 text (byte 0xe9 at line 2, column 42); save it as UTF-8`,
    );
  });

  await t.test('a U+FFFD the file really holds does not hide the invalid byte after it', () => {
    const bytes = Buffer.concat([
      Buffer.from('{"a": "\uFFFD", "b": "'),
      Buffer.from([0xff]),
      Buffer.from('"}'),
    ]);
    const path = file('replacement.json', bytes);
    assert.equal(
      refused(path),
      `${path} is not UTF-8 text (byte 0xff at line 1, column 18); save it as UTF-8`,
    );
  });

  await t.test('a key given twice in one object is refused, naming its path and line', () => {
    // JSON.parse would keep the last price silently.
    const text =
      '{\n  "products": [\n    { "id": 1, "price": 42.9 },\n    { "id": 2, "price": 42.9,\n      "price": 4.29 }\n  ]\n}\n';
    const path = file('twice.json', text);
    assert.equal(
      refused(path),
      `${path} gives products[1].price twice (the second at line 5, column 7); a key may appear only once in an object`,
    );
    // The same key written with an escape is the same key; a key that is not a name is quoted.
    const escaped = file('escaped.json', '{"a": {"sped": {"x y": [], "x\\u0020y": 1}}}');
    assert.match(refused(escaped), /gives a\.sped\["x y"\] twice \(the second at line 1, column 28\)/);
    assert.match(
      refused(file('top.json', '{"restaurants": [], "restaurants": []}')),
      /gives restaurants twice/,
    );
  });

  await t.test('the same key in different objects, or as a value, is no duplicate', () => {
    const data = {
      a: [
        { id: 1, b: 'id' },
        { id: 2, b: 'id' },
      ],
      id: { id: ['id', '"id":'] },
    };
    assert.deepEqual(readJsonFile(file('distinct.json', JSON.stringify(data, null, 2))), data);
    // A long string of escapes (a regular expression over whole strings overflowed its stack here).
    const long = { sped: '\\"'.repeat(3_000_000) };
    assert.deepEqual(readJsonFile(file('long.json', JSON.stringify(long))), long);
  });

  await t.test('a folder is named as unreadable', () => {
    assert.equal(refused(dir), `cannot read ${dir}: EISDIR`);
  });
  await t.test('a file nested past 64 levels is refused before it is sent anywhere', () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    assert.match(refused(file('deep.json', deep)), /nests arrays and objects more than 64 levels deep/);
    const deepest = `${'['.repeat(64)}${']'.repeat(64)}`;
    assert.ok(Array.isArray(readJsonFile(file('64.json', deepest))), '64 levels are read');
  });
});
