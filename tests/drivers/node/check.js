// mysql2 and mariadb (Node.js) against the server at DB_HOST:DB_PORT.
//
// Usage: DB_HOST=127.0.0.1 DB_PORT=3306 node check.js mysql2|mariadb
//
// Every check runs twice: through `query` (the driver escapes parameters into the text,
// text protocol) and through `execute` (server-side prepared statements, binary
// protocol). Every mismatch is printed; the exit code is 1 if there was any.
'use strict';

const assert = require('node:assert');

const failures = [];

function fail(message) {
  failures.push(message);
  console.error(`MISMATCH: ${message}`);
}

function expectEqual(what, got, want) {
  try {
    assert.deepStrictEqual(got, want);
  } catch {
    fail(`${what}: got ${show(got)}, want ${show(want)}`);
  }
}

function show(value) {
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? `${v}n` : v));
}

// The adapters: one connection API over both drivers.
const drivers = {
  mysql2: {
    async connect(options) {
      const mysql = require('mysql2/promise');
      return mysql.createConnection({
        ...options,
        // BIGINT and DECIMAL as exact strings; dates as the server's text.
        supportBigNumbers: true,
        bigNumberStrings: true,
        dateStrings: true,
        timezone: 'Z',
        multipleStatements: options.multipleStatements ?? false,
      });
    },
    async run(conn, protocol, sql, params) {
      const [result, fields] = await conn[protocol](sql, params);
      return { result, fields };
    },
    insertId: (result) => Number(result.insertId),
    bigintKind: 'string',
    prepare: async (conn, sql) => {
      const statement = await conn.prepare(sql);
      return {
        run: async (params) => (await statement.execute(params))[0],
        close: async () => statement.close(),
      };
    },
  },
  mariadb: {
    async connect(options) {
      const mariadb = require('mariadb');
      return mariadb.createConnection({
        ...options,
        dateStrings: true,
        timezone: 'Z',
        multipleStatements: options.multipleStatements ?? false,
      });
    },
    async run(conn, protocol, sql, params) {
      const result = await conn[protocol](sql, params);
      return { result, fields: result.meta };
    },
    insertId: (result) => Number(result.insertId),
    bigintKind: 'bigint',
    prepare: async (conn, sql) => {
      const statement = await conn.prepare(sql);
      return {
        run: async (params) => statement.execute(params),
        close: async () => statement.close(),
      };
    },
  },
};

const COLUMNS = 'ti, tu, si, su, mi, mu, i, iu, bi, bu, de, f, d, v, b, vb, dt, dtt, ts, n';
const COLUMN_NAMES = COLUMNS.split(', ');
const CREATE_TYPES = `CREATE TABLE types (
  id INT AUTO_INCREMENT PRIMARY KEY,
  ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, su SMALLINT UNSIGNED,
  mi MEDIUMINT, mu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED,
  bi BIGINT, bu BIGINT UNSIGNED, de DECIMAL(30,10), f FLOAT, d DOUBLE,
  v VARCHAR(100), b BLOB, vb VARBINARY(300), dt DATE, dtt DATETIME(6),
  ts TIMESTAMP(3) NULL, n INT NULL)`;

// MySQL protocol type codes of the columns, and whether each is UNSIGNED (a table's
// TIMESTAMP column is, in MariaDB).
const COLUMN_TYPES = [1, 1, 2, 2, 9, 9, 3, 3, 8, 8, 246, 4, 5, 253, 252, 253, 10, 12, 7, 3];
const UNSIGNED = [false, true, false, true, false, true, false, true, false, true,
  false, false, false, false, false, false, false, false, true, false];
const UNSIGNED_FLAG = 32;

const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
const AWKWARD_BYTES = Buffer.from("\x00'\"\\\n\r\x1a\xff%_", 'latin1');

// Parameters and the values read back, as `kind:text` (see canonical()).
const ROWS = [
  {
    params: [-128, 0, -32768, 0, -8388608, 0, -2147483648, 0, -9223372036854775808n, 0n,
      '-99999999999999999999.9999999999', -1.5, -0.1, 'héllo wörld 😀 日本語 ñ', ALL_BYTES,
      AWKWARD_BYTES, '1000-01-01', '1000-01-01 00:00:00',
      new Date(Date.UTC(2001, 1, 3, 4, 5, 6, 789)), null],
    text: ['-128', '0', '-32768', '0', '-8388608', '0', '-2147483648', '0',
      '-9223372036854775808', '0', '-99999999999999999999.9999999999', '-1.5', '-0.1',
      'héllo wörld 😀 日本語 ñ', ALL_BYTES.toString('hex'), AWKWARD_BYTES.toString('hex'),
      '1000-01-01', '1000-01-01 00:00:00', '2001-02-03 04:05:06.789', null],
  },
  {
    params: [127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295,
      9223372036854775807n, 18446744073709551615n, '99999999999999999999.9999999999',
      65504, Number.MAX_VALUE, '', Buffer.alloc(0), Buffer.alloc(0), '9999-12-31',
      '9999-12-31 23:59:59.999999', '2038-01-19 03:14:07.999', 42],
    text: ['127', '255', '32767', '65535', '8388607', '16777215', '2147483647', '4294967295',
      '9223372036854775807', '18446744073709551615', '99999999999999999999.9999999999',
      '65504', String(Number.MAX_VALUE), '', '', '', '9999-12-31',
      '9999-12-31 23:59:59.999999', '2038-01-19 03:14:07.999', '42'],
  },
  { params: Array(20).fill(null), text: Array(20).fill(null) },
];

// The JavaScript kind each column is read as: numbers, BIGINT per driver, the rest.
function expectedKinds(driver) {
  const big = driver.bigintKind;
  return ['number', 'number', 'number', 'number', 'number', 'number', 'number', 'number',
    big, big, 'string', 'number', 'number', 'string', 'buffer', 'buffer', 'string', 'string',
    'string', 'number'];
}

function kindOf(value) {
  if (value === null) return 'null';
  if (Buffer.isBuffer(value)) return 'buffer';
  return typeof value;
}

// A value as text; a datetime's fraction is compared without trailing zeros, because
// the binary protocol carries microseconds and the text protocol the column's digits.
function canonical(value) {
  if (value === null) return null;
  if (Buffer.isBuffer(value)) return value.toString('hex');
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+$/.test(value)) {
    return value.replace(/\.?0+$/, '');
  }
  return String(value);
}

function canonicalExpected(text) {
  return text === null ? null : canonical(text);
}

async function main() {
  const name = process.argv[2];
  const driver = drivers[name];
  if (!driver) {
    console.error('usage: node check.js mysql2|mariadb (DB_HOST, DB_PORT in the environment)');
    process.exit(2);
  }
  // The driver's defaults (no TLS for either), root without a password.
  const options = {
    host: process.env.DB_HOST,
    port: Number(process.env.DB_PORT),
    user: 'root',
    connectTimeout: 10000,
  };
  const setup = await driver.connect(options);
  await setup.ping();
  for (const protocol of ['query', 'execute']) {
    const database = `drv_node_${name}_${protocol}`;
    await setup.query(`DROP DATABASE IF EXISTS ${database}`);
    await setup.query(`CREATE DATABASE ${database}`);
    const conn = await driver.connect({ ...options, database });
    await typesRoundTrip(driver, conn, protocol);
    await affectedRowsAndInsertIds(driver, conn, protocol);
    await transactions(driver, conn, protocol);
    await errorCodes(driver, conn, protocol);
    await preparedReuse(driver, conn);
    await conn.ping();
    await conn.end();
    const multi = await driver.connect({ ...options, database, multipleStatements: true });
    await multiStatements(driver, multi);
    await multi.end();
  }
  if (name === 'mariadb') await mariadbOnly(driver, options);
  await setup.end();
  if (failures.length > 0) {
    console.error(`${name}: ${failures.length} mismatches`);
    process.exit(1);
  }
  console.log(`${name}: all checks passed`);
}

async function typesRoundTrip(driver, conn, protocol) {
  const what = (s) => `${protocol}: ${s}`;
  await conn.query(CREATE_TYPES);
  const insert = `INSERT INTO types (${COLUMNS}) VALUES (${Array(20).fill('?').join(', ')})`;
  for (const [index, row] of ROWS.entries()) {
    const { result } = await driver.run(conn, protocol, insert, row.params);
    expectEqual(what(`insert row ${index + 1}: affected rows`), result.affectedRows, 1);
    expectEqual(what(`insert row ${index + 1}: insert id`), driver.insertId(result), index + 1);
  }
  const selects = [
    [`SELECT ${COLUMNS} FROM types ORDER BY id`, []],
    [`SELECT ${COLUMNS} FROM types WHERE id > ? ORDER BY id`, [0]],
  ];
  const kinds = expectedKinds(driver);
  for (const [sql, params] of selects) {
    const { result: rows, fields } = await driver.run(conn, protocol, sql, params);
    expectEqual(what(`${sql}: column types`), fields.map((f) => f.columnType), COLUMN_TYPES);
    expectEqual(what(`${sql}: unsigned flags`),
      fields.map((f) => (f.flags & UNSIGNED_FLAG) !== 0), UNSIGNED);
    expectEqual(what(`${sql}: row count`), rows.length, ROWS.length);
    for (const [index, row] of rows.entries()) {
      for (const [column, name] of COLUMN_NAMES.entries()) {
        const value = row[name];
        const wantText = ROWS[index].text[column];
        const wantKind = wantText === null ? 'null' : kinds[column];
        const label = what(`${sql}: row ${index + 1} ${name}`);
        expectEqual(`${label} kind`, kindOf(value), wantKind);
        expectEqual(label, canonical(value), canonicalExpected(wantText));
      }
    }
  }
}

async function affectedRowsAndInsertIds(driver, conn, protocol) {
  const run = async (sql, params) => (await driver.run(conn, protocol, sql, params)).result;
  await conn.query('CREATE TABLE seq (id BIGINT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(20), k INT)');
  let result = await run('INSERT INTO seq (v, k) VALUES (?, 1), (?, 1), (?, 2)', ['a', 'b', 'c']);
  expectEqual(`${protocol}: multi-row insert: affected rows`, result.affectedRows, 3);
  expectEqual(`${protocol}: multi-row insert: first id`, driver.insertId(result), 1);
  result = await run('INSERT INTO seq (id, v, k) VALUES (100, ?, 3)', ['d']);
  expectEqual(`${protocol}: explicit id`, driver.insertId(result), 100);
  result = await run('INSERT INTO seq (v, k) VALUES (?, 3)', ['e']);
  expectEqual(`${protocol}: id after an explicit id`, driver.insertId(result), 101);
  result = await run('UPDATE seq SET k = ? WHERE k = ?', [5, 1]);
  expectEqual(`${protocol}: update of two rows`, result.affectedRows, 2);
  // Both drivers set CLIENT_FOUND_ROWS by default: matched rows count, changed or not.
  result = await run('UPDATE seq SET k = ? WHERE k = ?', [5, 5]);
  expectEqual(`${protocol}: update that changes nothing`, result.affectedRows, 2);
  result = await run('DELETE FROM seq WHERE k = ?', [3]);
  expectEqual(`${protocol}: delete`, result.affectedRows, 2);
}

async function count(driver, conn, protocol, table) {
  const { result } = await driver.run(conn, protocol, `SELECT COUNT(*) AS n FROM ${table}`, []);
  return Number(result[0].n);
}

async function transactions(driver, conn, protocol) {
  await conn.query('CREATE TABLE accounts (id INT PRIMARY KEY, balance BIGINT NOT NULL)');
  const run = (sql, params) => driver.run(conn, protocol, sql, params);
  await conn.beginTransaction();
  await run('INSERT INTO accounts VALUES (?, ?)', [1, 100]);
  expectEqual(`${protocol}: count inside the transaction`,
    await count(driver, conn, protocol, 'accounts'), 1);
  await conn.rollback();
  expectEqual(`${protocol}: count after rollback`,
    await count(driver, conn, protocol, 'accounts'), 0);
  await conn.beginTransaction();
  await run('INSERT INTO accounts VALUES (?, ?), (?, ?)', [1, 100, 2, 50]);
  await run('UPDATE accounts SET balance = balance - ? WHERE id = ?', [30, 1]);
  await conn.commit();
  const { result } = await run('SELECT balance FROM accounts WHERE id = ?', [1]);
  expectEqual(`${protocol}: balance after commit`, Number(result[0].balance), 70);
  expectEqual(`${protocol}: count after commit`,
    await count(driver, conn, protocol, 'accounts'), 2);
}

async function expectError(what, promise, errno, sqlState) {
  try {
    await promise;
    fail(`${what}: succeeded, want error ${errno} (${sqlState})`);
  } catch (error) {
    expectEqual(`${what}: error code (${error.message})`, error.errno, errno);
    expectEqual(`${what}: SQLSTATE`, error.sqlState, sqlState);
  }
}

async function errorCodes(driver, conn, protocol) {
  const run = (sql, params) => driver.run(conn, protocol, sql, params);
  await expectError(`${protocol}: duplicate key`, run('INSERT INTO accounts VALUES (?, ?)', [1, 0]),
    1062, '23000');
  await expectError(`${protocol}: syntax error`, run('SELEC ?', [1]), 1064, '42000');
  await expectError(`${protocol}: missing table`, run('SELECT * FROM no_such_table', []),
    1146, '42S02');
  // The connection is still usable after errors.
  await conn.ping();
  expectEqual(`${protocol}: count after errors`,
    await count(driver, conn, protocol, 'accounts'), 2);
}

async function preparedReuse(driver, conn) {
  const insert = await driver.prepare(conn, 'INSERT INTO seq (v, k) VALUES (?, ?)');
  const executions = 300;
  for (let n = 0; n < executions; n++) {
    const result = await insert.run([`r${n}`, n]);
    if (result.affectedRows !== 1) fail(`reused insert ${n}: ${show(result)}`);
  }
  await insert.close();
  const select = await driver.prepare(conn, 'SELECT v, k FROM seq WHERE k = ? AND v LIKE ?');
  for (let n = 0; n < executions; n++) {
    const rows = await select.run([n, 'r%']);
    if (rows.length !== 1 || rows[0].v !== `r${n}` || rows[0].k !== n) {
      fail(`reused select ${n}: ${show(rows)}`);
    }
  }
  await select.close();
}

async function multiStatements(driver, conn) {
  const { result } = await driver.run(conn, 'query',
    "SELECT 1 AS one; SELECT 'two' AS s, 3 AS n; UPDATE accounts SET balance = 2", []);
  expectEqual('multi-statement: result count', result.length, 3);
  expectEqual('multi-statement: first set', result[0].map((r) => ({ ...r })), [{ one: 1 }]);
  expectEqual('multi-statement: second set', result[1].map((r) => ({ ...r })),
    [{ s: 'two', n: 3 }]);
  expectEqual('multi-statement: update', result[2].affectedRows, 2);
}

// What only MariaDB's connector offers: batch and COM_RESET_CONNECTION. A batch is one
// COM_STMT_BULK_EXECUTE where the server announces STMT_BULK_OPERATIONS (MariaDB does),
// answered by one result; else (manycore) one execution per row, answered by a result
// per row.
async function mariadbOnly(driver, options) {
  const conn = await driver.connect({ ...options, database: 'drv_node_mariadb_execute' });
  await conn.query('CREATE TABLE batch (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(10), b BLOB)');
  const rows = Array.from({ length: 50 }, (_, n) => [`b${n}`, Buffer.from([n, 255 - n])]);
  const result = await conn.batch('INSERT INTO batch (v, b) VALUES (?, ?)', rows);
  const results = Array.isArray(result) ? result : [result];
  expectEqual('batch: affected rows',
    results.reduce((sum, r) => sum + r.affectedRows, 0), 50);
  console.log(`batch: ${results.length} result(s) for 50 rows`);
  const read = await conn.query('SELECT v, b FROM batch ORDER BY id');
  expectEqual('batch: rows', read.map((r) => [r.v, r.b]), rows);
  await conn.query('SET @marker = 7');
  await conn.reset();
  const [after] = await conn.query('SELECT @marker AS marker');
  expectEqual('reset: user variable cleared', after.marker, null);
  await conn.end();
}

const timer = setTimeout(() => {
  console.error('FAILED: timed out after 90 s');
  process.exit(1);
}, 90000);
timer.unref();

main().catch((error) => {
  console.error(`FAILED: ${error.stack || error}`);
  process.exit(1);
});
