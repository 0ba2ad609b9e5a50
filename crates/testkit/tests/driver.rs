//! The Rust `mysql` driver against the server under test (`MANYCORE_TEST_TARGET`):
//! prepared statements, both protocols, multiple result sets, transactions, error
//! codes, COM_PING, COM_RESET_CONNECTION, and values past the 16 MiB packet size.

use manycore_testkit::client::opts;
use manycore_testkit::Server;
use mysql::prelude::Queryable;
use mysql::{Conn, Opts, Row, TxOpts, Value};

fn conn_on(server: &Server, database: &str) -> Conn {
    let mut conn = server.connect();
    conn.query_drop(format!("CREATE DATABASE IF NOT EXISTS {database}"))
        .expect("create database");
    conn.query_drop(format!("USE {database}"))
        .expect("use database");
    conn
}

/// A value as text whatever the protocol: the text protocol sends bytes, the
/// binary one typed values; dates are printed as the text protocol would.
fn canonical(value: &Value) -> String {
    match value {
        Value::NULL => "NULL".into(),
        Value::Bytes(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Double(d) => d.to_string(),
        Value::Date(y, mo, d, 0, 0, 0, 0) => format!("{y:04}-{mo:02}-{d:02}"),
        Value::Date(y, mo, d, h, mi, s, 0) => {
            format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}")
        }
        Value::Date(y, mo, d, h, mi, s, us) => {
            format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}.{us:06}")
        }
        Value::Time(neg, d, h, m, s, us) => {
            let hours = u32::from(*h) + d * 24;
            let sign = if *neg { "-" } else { "" };
            if *us == 0 {
                format!("{sign}{hours:02}:{m:02}:{s:02}")
            } else {
                format!("{sign}{hours:02}:{m:02}:{s:02}.{us:06}")
            }
        }
    }
}

fn canonical_rows(rows: Vec<Row>) -> Vec<Vec<String>> {
    rows.into_iter()
        .map(|row| row.unwrap().iter().map(canonical).collect())
        .collect()
}

const CREATE_TYPES: &str = "CREATE TABLE types (
    id INT PRIMARY KEY, ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, i INT, iu INT UNSIGNED,
    bi BIGINT, bu BIGINT UNSIGNED, de DECIMAL(20,6), f FLOAT, d DOUBLE, c CHAR(4),
    v VARCHAR(50), t TEXT, b BLOB, dt DATE, dtt DATETIME, ts TIMESTAMP NULL, dt6 DATETIME(6)
)";

#[test]
fn prepared_parameters_round_trip_exactly() {
    let server = Server::from_env();
    let mut conn = conn_on(&server, "driver_params");
    conn.query_drop(CREATE_TYPES).expect("create table");
    let insert = conn
        .prep("INSERT INTO types VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .expect("prepare insert");
    let blob: Vec<u8> = (0..=255u8).collect();
    let rows: Vec<Vec<Value>> = vec![
        vec![
            1.into(),
            (-128i8).into(),
            255u8.into(),
            (-32768i16).into(),
            i32::MIN.into(),
            u32::MAX.into(),
            i64::MIN.into(),
            u64::MAX.into(),
            "-12345678901234.123456".into(),
            1.5f32.into(),
            0.1f64.into(),
            "abcd".into(),
            "héllo wörld ✓".into(),
            "x".repeat(1000).into(),
            blob.clone().into(),
            Value::Date(2024, 2, 29, 0, 0, 0, 0),
            Value::Date(1999, 12, 31, 23, 59, 59, 0),
            Value::Date(2038, 1, 19, 3, 14, 7, 0),
            Value::Date(2024, 1, 2, 3, 4, 5, 123456),
        ],
        vec![
            2.into(),
            127i8.into(),
            0u8.into(),
            32767i16.into(),
            i32::MAX.into(),
            0u32.into(),
            i64::MAX.into(),
            0u64.into(),
            "0.000001".into(),
            (-0.25f32).into(),
            (-1.7976931348623157e308f64).into(),
            "".into(),
            "".into(),
            "".into(),
            Vec::<u8>::new().into(),
            Value::Date(1000, 1, 1, 0, 0, 0, 0),
            Value::Date(9999, 12, 31, 23, 59, 59, 0),
            Value::NULL,
            Value::Date(1000, 1, 1, 0, 0, 0, 1),
        ],
        // NULL in every column; strings that look like SQL.
        std::iter::once(Value::from(3))
            .chain(std::iter::repeat_n(Value::NULL, 18))
            .collect(),
        vec![
            4.into(),
            "12".into(),
            7.into(),
            "-5".into(),
            42.9f64.into(),
            "7".into(),
            "-1".into(),
            1u64.into(),
            2.5f64.into(),
            3i32.into(),
            "2.5".into(),
            "'; -".into(),
            "it's \"quoted\" \\ back".into(),
            "NULL".into(),
            b"\0\x01'\"\\".to_vec().into(),
            "2024-03-15".into(),
            "2024-03-15 10:20:30".into(),
            "2024-03-15 10:20:30".into(),
            "2024-03-15 10:20:30.5".into(),
        ],
    ];
    for row in &rows {
        conn.exec_drop(&insert, row.clone())
            .expect("insert with parameters");
    }

    let binary: Vec<Row> = conn
        .exec("SELECT * FROM types ORDER BY id", ())
        .expect("binary select");
    let binary = canonical_rows(binary);
    let text: Vec<Row> = conn
        .query("SELECT * FROM types ORDER BY id")
        .expect("text select");
    let text = canonical_rows(text);
    assert_eq!(binary.len(), 4);
    // Typed values that both protocols must round-trip exactly.
    let expected_first = [
        "1",
        "-128",
        "255",
        "-32768",
        "-2147483648",
        "4294967295",
        "-9223372036854775808",
        "18446744073709551615",
        "-12345678901234.123456",
        "1.5",
        "0.1",
        "abcd",
        "héllo wörld ✓",
    ];
    assert_eq!(
        &binary[0][..13],
        &expected_first[..],
        "binary protocol, row 1"
    );
    assert_eq!(
        &binary[0][15..],
        [
            "2024-02-29",
            "1999-12-31 23:59:59",
            "2038-01-19 03:14:07",
            "2024-01-02 03:04:05.123456"
        ]
    );
    assert_eq!(
        binary[1][10].parse::<f64>().ok(),
        Some(-1.7976931348623157e308)
    );
    assert!(
        binary[2][1..].iter().all(|v| v == "NULL"),
        "all NULL: {:?}",
        binary[2]
    );
    assert_eq!(
        &binary[3][1..],
        [
            "12",
            "7",
            "-5",
            "43",
            "7",
            "-1",
            "1",
            "2.500000",
            "3",
            "2.5",
            "'; -",
            "it's \"quoted\" \\ back",
            "NULL",
            "\0\u{1}'\"\\",
            "2024-03-15",
            "2024-03-15 10:20:30",
            "2024-03-15 10:20:30",
            "2024-03-15 10:20:30.500000"
        ]
    );
    let blobs: Vec<Option<Vec<u8>>> = conn
        .exec("SELECT b FROM types ORDER BY id", ())
        .expect("blobs");
    assert_eq!(blobs[0].as_deref(), Some(&blob[..]), "binary-safe BLOB");
    assert_eq!(blobs[1].as_deref(), Some(&[][..]));
    assert_eq!(blobs[2], None);

    // Text and binary protocols agree on every value except FLOAT/DOUBLE text forms.
    for (row_b, row_t) in binary.iter().zip(&text) {
        for (column, (b, t)) in row_b.iter().zip(row_t).enumerate() {
            if column == 9 || column == 10 {
                let parse = |s: &str| s.parse::<f64>().ok();
                assert_eq!(parse(b), parse(t), "float column {column}: {b} vs {t}");
            } else {
                assert_eq!(b, t, "column {column} differs between protocols");
            }
        }
    }

    // Parameters in WHERE, with NULL, re-executing one statement many times.
    let select = conn
        .prep("SELECT id FROM types WHERE id > ? AND (v = ? OR ? IS NULL) ORDER BY id")
        .expect("prep");
    let ids: Vec<i32> = conn
        .exec(&select, (1, Value::NULL, Value::NULL))
        .expect("exec");
    assert_eq!(ids, [2, 3, 4]);
    let ids: Vec<i32> = conn.exec(&select, (0, "", "x")).expect("exec");
    assert_eq!(ids, [2]);
    let sum: Option<f64> = conn
        .exec_first("SELECT ? + ?", (1.25f64, "2.5"))
        .expect("mixed types");
    assert_eq!(sum, Some(3.75));
    conn.close(insert).expect("COM_STMT_CLOSE");
}

/// MariaDB types a `?` by the value bound at execute time, so `? + 1` with an integer is
/// BIGINT (the driver then reads an i64, not a DOUBLE).
#[test]
fn parameters_are_typed_by_their_bound_values() {
    let server = Server::from_env();
    let mut conn = conn_on(&server, "driver_param_types");
    for round in 0..200 {
        let n: Option<i64> = conn
            .exec_first("SELECT ? + 1", (round,))
            .expect("exec_first");
        assert_eq!(n, Some(round + 1));
    }
}

#[test]
fn multiple_statements_give_multiple_result_sets() {
    let server = Server::from_env();
    let mut conn = conn_on(&server, "driver_multi");
    let mut result = conn
        .query_iter(
            "CREATE TABLE m (id INT AUTO_INCREMENT PRIMARY KEY, v INT); \
             INSERT INTO m (v) VALUES (10), (20), (30); \
             SELECT id, v FROM m ORDER BY id; \
             UPDATE m SET v = v + 1 WHERE id > 1; \
             SELECT COUNT(*) AS n, SUM(v) AS s FROM m",
        )
        .expect("multi-statement query");
    let mut summaries = Vec::new();
    while let Some(set) = result.iter() {
        let columns: Vec<String> = set
            .columns()
            .as_ref()
            .iter()
            .map(|c| c.name_str().into_owned())
            .collect();
        let affected = set.affected_rows();
        let rows: Vec<Vec<String>> = set
            .map(|row| row.expect("row").unwrap().iter().map(canonical).collect())
            .collect();
        summaries.push((columns, affected, rows));
    }
    drop(result);
    assert_eq!(summaries.len(), 5, "{summaries:?}");
    assert_eq!(summaries[1].1, 3, "INSERT affected rows");
    assert_eq!(summaries[2].0, ["id", "v"]);
    assert_eq!(summaries[2].2, [["1", "10"], ["2", "20"], ["3", "30"]]);
    assert_eq!(summaries[3].1, 2, "UPDATE affected rows");
    assert_eq!(summaries[4].2, [["3", "62"]]);

    // An error in the middle stops the batch; the connection stays usable.
    let outcome = conn
        .query_iter("SELECT 1; SELECT * FROM nope; SELECT 3")
        .and_then(|mut result| {
            let mut sets = 0;
            while let Some(set) = result.iter() {
                for row in set {
                    row?;
                }
                sets += 1;
            }
            Ok(sets)
        });
    match outcome {
        Err(mysql::Error::MySqlError(e)) => assert_eq!(e.code, 1146),
        other => panic!("expected 1146 from the second statement, got {other:?}"),
    }
    let one: Option<i32> = conn
        .query_first("SELECT 1")
        .expect("connection usable after error");
    assert_eq!(one, Some(1));
}

#[test]
fn transactions_commit_roll_back_and_isolate() {
    let server = Server::from_env();
    let mut a = conn_on(&server, "driver_tx");
    let mut b = conn_on(&server, "driver_tx");
    a.query_drop("CREATE TABLE acct (id INT PRIMARY KEY, balance INT NOT NULL)")
        .expect("create");
    a.query_drop("INSERT INTO acct VALUES (1, 100), (2, 100)")
        .expect("seed");

    let mut tx = a.start_transaction(TxOpts::default()).expect("begin");
    tx.exec_drop(
        "UPDATE acct SET balance = balance - ? WHERE id = ?",
        (30, 1),
    )
    .expect("debit");
    tx.exec_drop(
        "UPDATE acct SET balance = balance + ? WHERE id = ?",
        (30, 2),
    )
    .expect("credit");
    let inside: Vec<(i32, i32)> = tx
        .query("SELECT id, balance FROM acct ORDER BY id")
        .expect("read own writes");
    assert_eq!(inside, [(1, 70), (2, 130)]);
    let outside: Vec<(i32, i32)> = b
        .query("SELECT id, balance FROM acct ORDER BY id")
        .expect("other session");
    assert_eq!(
        outside,
        [(1, 100), (2, 100)],
        "uncommitted writes are invisible to others"
    );
    tx.commit().expect("commit");
    let outside: Vec<(i32, i32)> = b
        .query("SELECT id, balance FROM acct ORDER BY id")
        .expect("after commit");
    assert_eq!(outside, [(1, 70), (2, 130)]);

    let mut tx = a.start_transaction(TxOpts::default()).expect("begin");
    tx.query_drop("DELETE FROM acct").expect("delete");
    tx.query_drop("INSERT INTO acct VALUES (3, 1)")
        .expect("insert");
    tx.rollback().expect("rollback");
    let total: Option<i64> = a.query_first("SELECT SUM(balance) FROM acct").expect("sum");
    assert_eq!(total, Some(200), "the invariant survives a rollback");
    let count: Option<i64> = a.query_first("SELECT COUNT(*) FROM acct").expect("count");
    assert_eq!(count, Some(2));

    // A dropped transaction object rolls back.
    {
        let mut tx = a.start_transaction(TxOpts::default()).expect("begin");
        tx.query_drop("UPDATE acct SET balance = 0")
            .expect("update");
    }
    let total: Option<i64> = a.query_first("SELECT SUM(balance) FROM acct").expect("sum");
    assert_eq!(total, Some(200));
}

#[test]
fn errors_carry_code_and_sqlstate() {
    let server = Server::from_env();
    let mut conn = conn_on(&server, "driver_errors");
    conn.query_drop("CREATE TABLE u (id INT PRIMARY KEY, name VARCHAR(3) NOT NULL)")
        .expect("create");
    conn.query_drop("INSERT INTO u VALUES (1, 'a')")
        .expect("insert");
    let cases: &[(&str, u16, &str)] = &[
        ("INSERT INTO u VALUES (1, 'b')", 1062, "23000"),
        ("INSERT INTO u VALUES (2, NULL)", 1048, "23000"),
        ("INSERT INTO u VALUES (2, 'toolong')", 1406, "22001"),
        ("SELECT * FROM nope", 1146, "42S02"),
        ("SELECT nope FROM u", 1054, "42S22"),
        ("SELEC 1", 1064, "42000"),
        ("USE no_such_database", 1049, "42000"),
    ];
    for &(sql, code, state) in cases {
        match conn.query_drop(sql) {
            Err(mysql::Error::MySqlError(e)) => {
                assert_eq!(
                    (e.code, e.state.as_str()),
                    (code, state),
                    "{sql}: {}",
                    e.message
                )
            }
            other => panic!("{sql}: expected error {code}, got {other:?}"),
        }
        // The same through the binary protocol, where the statement prepares.
        if sql.starts_with("INSERT") {
            match conn.exec_drop(sql, ()) {
                Err(mysql::Error::MySqlError(e)) => assert_eq!(e.code, code, "prepared {sql}"),
                other => panic!("prepared {sql}: expected error {code}, got {other:?}"),
            }
        }
    }
    match conn.prep("SELECT * FROM nope WHERE id = ?") {
        Err(mysql::Error::MySqlError(e)) => assert_eq!(e.code, 1146, "prepare of a missing table"),
        other => panic!("expected 1146 from COM_STMT_PREPARE, got {other:?}"),
    }
    let n: Option<i64> = conn
        .query_first("SELECT COUNT(*) FROM u")
        .expect("still usable");
    assert_eq!(n, Some(1));
}

#[test]
fn ping_and_reset_connection() {
    let server = Server::from_env();
    let mut conn = conn_on(&server, "driver_reset");
    conn.ping().expect("COM_PING");
    conn.query_drop("SET @mark = 42, autocommit = 0")
        .expect("session state");
    let mark: Option<i64> = conn.query_first("SELECT @mark").expect("user variable");
    assert_eq!(mark, Some(42));
    conn.reset().expect("COM_RESET_CONNECTION");
    let state: Option<(Option<i64>, i64)> = conn
        .query_first("SELECT @mark, @@autocommit")
        .expect("after reset");
    assert_eq!(
        state,
        Some((None, 1)),
        "reset clears user variables and session settings"
    );
    conn.ping().expect("COM_PING after reset");
    let db: Option<Option<String>> = conn.query_first("SELECT DATABASE()").expect("database");
    assert!(db.is_some());
}

/// One value of SHOW [GLOBAL] STATUS.
fn status(conn: &mut Conn, scope: &str, name: &str) -> u64 {
    let row: Option<(String, u64)> = conn
        .query_first(format!("SHOW {scope} STATUS LIKE '{name}'"))
        .expect("SHOW STATUS");
    row.unwrap_or_else(|| panic!("no status {name}")).1
}

#[test]
fn session_status_counts_this_connection_only() {
    let server = Server::from_env();
    let mut conn = conn_on(&server, "driver_status");
    let mut other = conn_on(&server, "driver_status");
    let questions = status(&mut conn, "SESSION", "Questions");
    let received = status(&mut conn, "SESSION", "Bytes_received");
    let sent = status(&mut conn, "SESSION", "Bytes_sent");
    for _ in 0..5 {
        conn.query_drop("DO 0").expect("DO 0");
    }
    let statement: Vec<i64> = conn.exec("SELECT ? + 1", (1,)).expect("prepared");
    assert_eq!(statement, [2]);
    let executes = status(&mut conn, "SESSION", "Com_stmt_execute");
    assert_eq!(executes, 1);
    // Five DOs, one execute, the SHOW of Bytes_received and Bytes_sent, then
    // Com_stmt_execute's and this one's: SHOW counts itself.
    assert_eq!(status(&mut conn, "SESSION", "Questions"), questions + 10);
    // Each DO sends at least its 4 bytes of text and 5 of header and command; each
    // reply is at least an OK packet (11 bytes).
    assert!(status(&mut conn, "SESSION", "Bytes_received") >= received + 5 * 9);
    assert!(status(&mut conn, "SESSION", "Bytes_sent") >= sent + 5 * 11);
    // The other connection counted none of that, and the server counted both.
    assert_eq!(status(&mut other, "SESSION", "Com_do"), 0);
    assert!(status(&mut other, "GLOBAL", "Com_do") >= 5);
    conn.reset().expect("COM_RESET_CONNECTION");
    assert_eq!(
        status(&mut conn, "SESSION", "Questions"),
        1,
        "a reset connection's counters restart"
    );
}

#[test]
fn values_larger_than_one_packet_round_trip() {
    // 20 MiB crosses the 16 MiB frame limit in both directions: the query packet
    // and the result row are each split into several frames.
    const SIZE: usize = 20 * 1024 * 1024;
    let server = Server::from_env();
    let mut conn = conn_on(&server, "driver_large");
    let allowed: Option<u64> = conn
        .query_first("SELECT @@max_allowed_packet")
        .expect("variable");
    assert!(
        allowed.unwrap_or(0) >= 32 * 1024 * 1024,
        "max_allowed_packet too small: {allowed:?}"
    );
    conn.query_drop("CREATE TABLE big (id INT PRIMARY KEY, data LONGBLOB)")
        .expect("create");

    let value: Vec<u8> = (0..SIZE).map(|i| b'a' + (i % 26) as u8).collect();
    let text = String::from_utf8(value.clone()).expect("ascii");
    // Text protocol: the literal is in the query.
    conn.query_drop(format!("INSERT INTO big VALUES (1, '{text}')"))
        .expect("20 MiB text INSERT");
    // Binary protocol: the value is a parameter.
    conn.exec_drop("INSERT INTO big VALUES (?, ?)", (2, value.clone()))
        .expect("20 MiB parameter");
    let lengths: Vec<(i32, u64)> = conn
        .query("SELECT id, LENGTH(data) FROM big ORDER BY id")
        .expect("lengths");
    assert_eq!(lengths, [(1, SIZE as u64), (2, SIZE as u64)]);
    let read: Option<Vec<u8>> = conn
        .query_first("SELECT data FROM big WHERE id = 1")
        .expect("text read");
    assert!(
        read.as_deref() == Some(&value[..]),
        "text protocol read differs"
    );
    let read: Option<Vec<u8>> = conn
        .exec_first("SELECT data FROM big WHERE id = ?", (2,))
        .expect("binary read");
    assert!(
        read.as_deref() == Some(&value[..]),
        "binary protocol read differs"
    );
}

#[test]
fn packet_over_max_allowed_packet_is_refused() {
    let server = Server::from_env();
    let mut probe = server.connect();
    let allowed: u64 = probe
        .query_first("SELECT @@max_allowed_packet")
        .expect("query")
        .expect("value");
    // Tell the driver the limit is higher so it sends what the server must refuse.
    let builder = opts(server.port(), None).max_allowed_packet(Some(allowed as usize * 2));
    let mut conn = Conn::new(Opts::from(builder)).expect("connect");
    let oversized = format!("SELECT '{}'", "x".repeat(allowed as usize + 1024));
    match conn.query_drop(oversized) {
        Err(mysql::Error::MySqlError(e)) => assert_eq!(e.code, 1153, "{}", e.message),
        // The server may also just close the connection after sending the error.
        Err(mysql::Error::IoError(_)) | Err(mysql::Error::DriverError(_)) => {}
        other => panic!("expected error 1153 or a closed connection, got {other:?}"),
    }
    assert!(server.is_alive(), "server survives an oversized packet");
    let one: Option<i32> = probe
        .query_first("SELECT 1")
        .expect("other sessions unaffected");
    assert_eq!(one, Some(1));
}
