//! MariaDB's CACHE_METADATA capability, what MariaDB Connector/C (sysbench, the
//! `mariadb` CLI, PHP, Python's mysqlclient) negotiates: the column count of every result
//! set carries a "metadata follows" byte, and an execution of a prepared statement leaves
//! out the column definitions the client already holds for it (from PREPARE's reply or
//! the last execution). Runs against the server
//! under test (`MANYCORE_TEST_TARGET`), so MariaDB checks the test.

use manycore_testkit::raw::{RawClient, COM_QUERY, COM_STMT_EXECUTE};
use manycore_testkit::Server;

const CACHE_METADATA: u32 = 1 << 4;
const MYSQL_TYPE_LONGLONG: u8 = 0x08;
const MYSQL_TYPE_VAR_STRING: u8 = 0xfd;

/// A result set as read without DEPRECATE_EOF: whether definitions were sent, their
/// column types, and the rows' payloads.
#[derive(Debug)]
struct ResultSet {
    metadata_follows: Option<u8>,
    column_types: Vec<u8>,
    rows: Vec<Vec<u8>>,
}

fn read_result_set(client: &mut RawClient, cache_metadata: bool) -> ResultSet {
    let (_, header) = client.read_packet().expect("column count");
    assert!(
        header[0] > 0 && header[0] < 251,
        "a small column count: {header:?}"
    );
    let count = usize::from(header[0]);
    let metadata_follows = cache_metadata.then(|| header[1]);
    assert_eq!(
        header.len(),
        if cache_metadata { 2 } else { 1 },
        "the metadata byte is there exactly when negotiated: {header:?}"
    );
    let mut column_types = Vec::new();
    if metadata_follows != Some(0) {
        for _ in 0..count {
            let (_, definition) = client.read_packet().expect("column definition");
            // The type is 6 bytes before the end: type, flags (2), decimals, filler (2).
            column_types.push(definition[definition.len() - 6]);
        }
    }
    let (_, eof) = client.read_packet().expect("EOF after the metadata");
    assert_eq!(eof.first(), Some(&0xfe), "EOF expected, got {eof:?}");
    let mut rows = Vec::new();
    loop {
        let (_, packet) = client.read_packet().expect("row or EOF");
        if packet.first() == Some(&0xfe) && packet.len() < 9 {
            break;
        }
        rows.push(packet);
    }
    ResultSet {
        metadata_follows,
        column_types,
        rows,
    }
}

/// COM_STMT_EXECUTE of a one-parameter statement, the parameter typed as `value` is, on
/// a connection that did (`cache_metadata`) or did not negotiate CACHE_METADATA.
fn execute_as(client: &mut RawClient, id: u32, value: Param, cache_metadata: bool) -> ResultSet {
    let mut argument = id.to_le_bytes().to_vec();
    argument.push(0); // no cursor
    argument.extend_from_slice(&1u32.to_le_bytes()); // iteration count
    argument.push(0); // NULL bitmap: not NULL
    argument.push(1); // types follow
    match value {
        Param::Int(n) => {
            argument.extend_from_slice(&[MYSQL_TYPE_LONGLONG, 0]);
            argument.extend_from_slice(&n.to_le_bytes());
        }
        Param::Text(text) => {
            argument.extend_from_slice(&[MYSQL_TYPE_VAR_STRING, 0]);
            assert!(text.len() < 251);
            argument.push(text.len() as u8);
            argument.extend_from_slice(text.as_bytes());
        }
    }
    client
        .command(COM_STMT_EXECUTE, &argument)
        .expect("execute");
    read_result_set(client, cache_metadata)
}

fn execute(client: &mut RawClient, id: u32, value: Param) -> ResultSet {
    execute_as(client, id, value, true)
}

#[derive(Clone, Copy)]
enum Param {
    Int(i64),
    Text(&'static str),
}

#[test]
fn executions_leave_out_the_definitions_the_client_holds() {
    let server = Server::from_env();
    let (mut client, offered) =
        RawClient::login_mariadb(server.port(), CACHE_METADATA).expect("login");
    assert_ne!(
        offered & CACHE_METADATA,
        0,
        "the handshake offers CACHE_METADATA"
    );
    for sql in [
        "CREATE DATABASE cache_metadata",
        "CREATE TABLE cache_metadata.t (id INT PRIMARY KEY, name VARCHAR(20))",
        "INSERT INTO cache_metadata.t VALUES (1, 'one'), (2, 'two')",
    ] {
        assert_eq!(
            client.query(sql).expect(sql),
            manycore_testkit::raw::Reply::Ok
        );
    }

    // Text results always carry their definitions, flagged as following.
    client
        .command(
            COM_QUERY,
            b"SELECT id, name FROM cache_metadata.t ORDER BY id",
        )
        .expect("query");
    let text = read_result_set(&mut client, true);
    assert_eq!(text.metadata_follows, Some(1));
    assert_eq!(text.column_types.len(), 2);
    assert_eq!(text.rows.len(), 2);

    let (id, params, columns) = client
        .prepare("SELECT id, name FROM cache_metadata.t WHERE id = ?")
        .expect("prepare");
    assert_eq!((params, columns), (1, 2));
    let first = execute(&mut client, id, Param::Int(1));
    assert_eq!(
        first.metadata_follows,
        Some(0),
        "PREPARE's reply had sent them"
    );
    assert_eq!(first.rows.len(), 1);
    let second = execute(&mut client, id, Param::Int(2));
    assert_eq!(
        second.metadata_follows,
        Some(0),
        "unchanged columns are left out"
    );
    assert_eq!(second.rows.len(), 1);
    assert!(
        second.rows[0].ends_with(b"\x03two"),
        "the row still arrives: {:?}",
        second.rows[0]
    );

    // The result column's type follows the parameter's: changed columns are sent again.
    let (id, _, _) = client.prepare("SELECT ? AS v").expect("prepare");
    let number = execute(&mut client, id, Param::Int(7));
    assert_eq!(number.metadata_follows, Some(1));
    assert_eq!(number.column_types, [MYSQL_TYPE_LONGLONG]);
    let same = execute(&mut client, id, Param::Int(8));
    assert_eq!(same.metadata_follows, Some(0));
    let text = execute(&mut client, id, Param::Text("x"));
    assert_eq!(
        text.metadata_follows,
        Some(1),
        "a new type is a new definition"
    );
    assert_eq!(text.column_types, [MYSQL_TYPE_VAR_STRING]);
    let text_again = execute(&mut client, id, Param::Text("y"));
    assert_eq!(text_again.metadata_follows, Some(0));
    let number_again = execute(&mut client, id, Param::Int(9));
    assert_eq!(
        number_again.metadata_follows,
        Some(1),
        "back to the number's definition"
    );
    assert_eq!(number_again.column_types, [MYSQL_TYPE_LONGLONG]);
}

#[test]
fn a_client_without_the_capability_gets_the_plain_format() {
    let server = Server::from_env();
    let mut client = RawClient::login(server.port()).expect("login");
    let (id, _, _) = client.prepare("SELECT ? AS v").expect("prepare");
    for n in [1, 2] {
        let result = execute_as(&mut client, id, Param::Int(n), false);
        assert_eq!(
            result.column_types,
            [MYSQL_TYPE_LONGLONG],
            "definitions every time"
        );
        assert_eq!(result.rows.len(), 1);
    }
}
