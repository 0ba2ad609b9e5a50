//! COM_STMT_SEND_LONG_DATA (what JDBC's setBlob and the C API's
//! mysql_stmt_send_long_data send): a parameter sent in pieces before COM_STMT_EXECUTE
//! is that execution's value; the next execution binds its own values again. Runs
//! against the server under test (`MANYCORE_TEST_TARGET`), so MariaDB checks the test.

use manycore_testkit::raw::{RawClient, COM_STMT_EXECUTE};
use manycore_testkit::Server;

const COM_STMT_SEND_LONG_DATA: u8 = 0x18;
const MYSQL_TYPE_VAR_STRING: u8 = 0xfd;

fn send_long_data(client: &mut RawClient, id: u32, param: u16, data: &[u8]) {
    let mut argument = id.to_le_bytes().to_vec();
    argument.extend_from_slice(&param.to_le_bytes());
    argument.extend_from_slice(data);
    client
        .command(COM_STMT_SEND_LONG_DATA, &argument)
        .expect("long data");
}

/// Executes with every parameter a string; `None` values were sent as long data (the
/// protocol then leaves them out of the execute packet). Returns the one text cell.
fn execute(client: &mut RawClient, id: u32, values: &[Option<&str>]) -> String {
    let mut argument = id.to_le_bytes().to_vec();
    argument.push(0); // no cursor
    argument.extend_from_slice(&1u32.to_le_bytes()); // iteration count
    argument.extend(std::iter::repeat_n(0u8, values.len().div_ceil(8))); // no NULLs
    argument.push(1); // types follow
    for _ in values {
        argument.extend_from_slice(&[MYSQL_TYPE_VAR_STRING, 0]);
    }
    for value in values.iter().flatten() {
        assert!(value.len() < 251, "one-byte length prefix only");
        argument.push(value.len() as u8);
        argument.extend_from_slice(value.as_bytes());
    }
    client
        .command(COM_STMT_EXECUTE, &argument)
        .expect("execute");
    let (_, header) = client.read_packet().expect("result header");
    assert_eq!(header, [1], "one column expected, got {header:?}");
    client.read_packet().expect("column definition");
    client.read_packet().expect("EOF after columns");
    let (_, row) = client.read_packet().expect("row");
    // A binary row: 0x00, a NULL bitmap of (1 + 7 + 2) / 8 bytes, the length-prefixed text.
    assert_eq!(
        row[..2],
        [0, 0],
        "a non-NULL binary row expected, got {row:?}"
    );
    let len = row[2] as usize;
    assert!(len < 251, "one-byte length prefix expected");
    let (_, eof) = client.read_packet().expect("EOF after rows");
    assert_eq!(eof.first(), Some(&0xfe), "one row expected");
    String::from_utf8(row[3..3 + len].to_vec()).expect("utf8")
}

#[test]
fn long_data_is_the_next_execution_s_value_only() {
    let server = Server::from_env();
    let mut client = RawClient::login(server.port()).expect("login");
    let (id, params, _) = client.prepare("SELECT CONCAT(?, '|', ?)").expect("prepare");
    assert_eq!(params, 2);
    send_long_data(&mut client, id, 1, b"long ");
    send_long_data(&mut client, id, 1, b"data");
    assert_eq!(
        execute(&mut client, id, &[Some("short"), None]),
        "short|long data",
        "the pieces are joined, in order, as the second parameter"
    );
    assert_eq!(
        execute(&mut client, id, &[Some("a"), Some("b")]),
        "a|b",
        "long data is used by one execution only"
    );
    send_long_data(&mut client, id, 0, b"first");
    assert_eq!(execute(&mut client, id, &[None, Some("c")]), "first|c");
}
