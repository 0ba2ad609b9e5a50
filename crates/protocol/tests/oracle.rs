//! Encoding oracle: mysql_common (the codec under the `mysql` and `mysql_async` client
//! crates) must read what we write, and we must read what it writes.

use manycore_protocol::auth::{
    caching_sha2_scramble, native_password_scramble, write_auth_switch_request, AuthPlugin,
};
use manycore_protocol::command::{parse_command, Command};
use manycore_protocol::handshake::{
    capability, parse_handshake_response, write_initial_handshake, ClientHandshake,
    InitialHandshake, Scramble,
};
use manycore_protocol::prepared::{parse_execute, write_prepare_ok, ParamValue, PrepareOk};
use manycore_protocol::response::{status, write_err, write_ok, write_result_set_end_ok, OkPacket};
use manycore_protocol::resultset::{
    write_binary_row, write_column_definition, write_text_row, ColumnDefinition,
};
use manycore_types::{DataType, Date, DateTime, IntWidth, Value};
use mysql_common::constants::{CapabilityFlags, ColumnFlags, ColumnType};
use mysql_common::io::ParseBuf;
use mysql_common::packets::{
    self as mc, Column, CommonOkPacket, ErrPacket, OkPacketDeserializer, ResultSetTerminator,
};
use mysql_common::proto::{Binary, MySerialize, Text};
use mysql_common::row::RowDeserializer;
use mysql_common::value::{ServerSide, Value as McValue};
use std::collections::HashMap;
use std::sync::Arc;

const SCRAMBLE: [u8; 20] = *b"abcdefghijklmnopqrst";

fn caps() -> CapabilityFlags {
    CapabilityFlags::from_bits_truncate(capability::SERVER_DEFAULT)
}

#[test]
fn scrambles_equal_mysql_common() {
    for pw in [&b"secret"[..], b"p\xc3\xa4ss", b"x"] {
        assert_eq!(
            Some(native_password_scramble(pw, &SCRAMBLE)),
            mysql_common::auth::plugins::mysql_native_password::scramble_native(&SCRAMBLE, pw)
        );
        assert_eq!(
            Some(caching_sha2_scramble(pw, &SCRAMBLE)),
            mysql_common::auth::plugins::caching_sha2_password::scramble_sha256(&SCRAMBLE, pw)
        );
    }
}

#[test]
fn mysql_common_reads_our_initial_handshake() {
    let scramble = Scramble(SCRAMBLE);
    let mut out = Vec::new();
    write_initial_handshake(
        &mut out,
        &InitialHandshake {
            server_version: "8.0.36-manycore",
            connection_id: 77,
            scramble: &scramble,
            capabilities: capability::server(true),
            charset: 45,
            status_flags: status::AUTOCOMMIT,
            auth_plugin: "caching_sha2_password",
        },
    );
    let h: mc::HandshakePacket<'_> = ParseBuf(&out).parse(()).expect("parses");
    assert_eq!(h.protocol_version(), 10);
    assert_eq!(h.server_version_parsed(), Some((8, 0, 36)));
    assert_eq!(h.connection_id(), 77);
    assert_eq!(h.nonce(), SCRAMBLE.to_vec());
    assert_eq!(h.capabilities().bits(), capability::server(true));
    assert_eq!(h.auth_plugin(), Some(mc::AuthPlugin::CachingSha2Password));
}

#[test]
fn we_read_mysql_common_handshake_responses() {
    let mut attrs = HashMap::new();
    attrs.insert("_client_name".to_string(), "mysql_common".to_string());
    let variants = [
        (
            caps(),
            Some(&b"db"[..]),
            Some(mc::AuthPlugin::MysqlNativePassword),
            Some(attrs),
        ),
        (
            caps() - CapabilityFlags::CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA,
            None,
            Some(mc::AuthPlugin::CachingSha2Password),
            None,
        ),
        (
            caps() - CapabilityFlags::CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA,
            None,
            None,
            None,
        ),
    ];
    for (flags, db, plugin, attrs) in variants {
        let scrambled = native_password_scramble(b"pw", &SCRAMBLE);
        let has_attrs = attrs.is_some();
        let resp = mc::HandshakeResponse::new(
            Some(&scrambled[..]),
            (8, 0, 36),
            Some(&b"root"[..]),
            db,
            plugin.clone(),
            flags,
            attrs,
            1 << 24,
        );
        let mut bytes = Vec::new();
        resp.serialize(&mut bytes);
        let Ok(ClientHandshake::Response(r)) = parse_handshake_response(&bytes) else {
            panic!("did not parse: {bytes:?}")
        };
        assert_eq!(r.username, b"root");
        assert_eq!(r.auth_response, scrambled);
        assert_eq!(r.database, db);
        assert_eq!(r.max_packet_size, 1 << 24);
        assert_eq!(r.charset, 45);
        assert_eq!(
            r.auth_plugin.map(|p| p.to_vec()),
            plugin.map(|p| p.as_bytes().to_vec())
        );
        if has_attrs {
            let got: Vec<_> = r.connect_attrs().collect();
            assert_eq!(got, vec![(&b"_client_name"[..], &b"mysql_common"[..])]);
        }
    }
    let ssl = mc::SslRequest::new(caps() | CapabilityFlags::CLIENT_SSL, 1 << 24, 45);
    let mut bytes = Vec::new();
    ssl.serialize(&mut bytes);
    assert!(matches!(
        parse_handshake_response(&bytes),
        Ok(ClientHandshake::SslRequest(_))
    ));
}

#[test]
fn mysql_common_reads_our_ok_err_and_auth_switch() {
    let mut out = Vec::new();
    let ok = OkPacket {
        affected_rows: 70000,
        last_insert_id: 5,
        status_flags: status::AUTOCOMMIT | status::IN_TRANS,
        warnings: 3,
        info: b"Rows matched: 1",
    };
    write_ok(&mut out, &ok);
    let flags = caps() - CapabilityFlags::CLIENT_SESSION_TRACK;
    let parsed = ParseBuf(&out)
        .parse::<OkPacketDeserializer<'_, CommonOkPacket>>(flags)
        .expect("ok parses")
        .into_inner();
    assert_eq!(parsed.affected_rows(), 70000);
    assert_eq!(parsed.last_insert_id(), Some(5));
    assert_eq!(parsed.warnings(), 3);
    assert_eq!(parsed.status_flags().bits(), ok.status_flags);
    assert_eq!(parsed.info_ref(), Some(&b"Rows matched: 1"[..]));

    out.clear();
    write_result_set_end_ok(
        &mut out,
        &OkPacket {
            status_flags: 2,
            ..OkPacket::default()
        },
    );
    let parsed = ParseBuf(&out)
        .parse::<OkPacketDeserializer<'_, ResultSetTerminator>>(flags)
        .expect("terminator parses")
        .into_inner();
    assert_eq!(parsed.status_flags().bits(), 2);

    out.clear();
    write_err(&mut out, 1146, "42S02", b"Table 'x.t' doesn't exist");
    let ErrPacket::Error(e) = ParseBuf(&out)
        .parse::<ErrPacket<'_>>(flags)
        .expect("err parses")
    else {
        panic!("progress report")
    };
    assert_eq!(e.error_code(), 1146);
    assert_eq!(
        e.sql_state_ref().map(|s| s.as_str().into_owned()),
        Some("42S02".to_string())
    );
    assert_eq!(e.message_ref(), b"Table 'x.t' doesn't exist");

    out.clear();
    write_auth_switch_request(&mut out, AuthPlugin::NativePassword, &Scramble(SCRAMBLE));
    let s: mc::AuthSwitchRequest<'_> = ParseBuf(&out).parse(()).expect("switch parses");
    assert_eq!(s.auth_plugin(), mc::AuthPlugin::MysqlNativePassword);
    assert_eq!(s.plugin_data(), &SCRAMBLE[..]);
}

fn columns(types: &[DataType]) -> Arc<[Column]> {
    types
        .iter()
        .map(|t| {
            let def = ColumnDefinition::new(b"c", t);
            let mut bytes = Vec::new();
            write_column_definition(&mut bytes, &def);
            ParseBuf(&bytes).parse::<Column>(()).expect("column parses")
        })
        .collect()
}

#[test]
fn mysql_common_reads_our_column_definitions() {
    let t = DataType::Int {
        width: IntWidth::Big,
        unsigned: true,
    };
    let def = ColumnDefinition::new(b"id", &t).with_table(b"shop", b"o", b"orders", b"order_id");
    let mut bytes = Vec::new();
    write_column_definition(&mut bytes, &def);
    let c: Column = ParseBuf(&bytes).parse(()).expect("parses");
    assert_eq!(c.schema_ref(), b"shop");
    assert_eq!(c.table_ref(), b"o");
    assert_eq!(c.org_table_ref(), b"orders");
    assert_eq!(c.name_ref(), b"id");
    assert_eq!(c.org_name_ref(), b"order_id");
    assert_eq!(c.column_type(), ColumnType::MYSQL_TYPE_LONGLONG);
    assert!(c
        .flags()
        .contains(ColumnFlags::UNSIGNED_FLAG | ColumnFlags::NUM_FLAG));
    assert_eq!(c.character_set(), 63);
    assert_eq!(c.column_length(), 20);
}

#[test]
fn mysql_common_reads_our_rows() {
    let dt = DateTime {
        date: Date {
            year: 2024,
            month: 2,
            day: 29,
        },
        hour: 13,
        minute: 14,
        second: 15,
        microsecond: 16,
    };
    let types = [
        DataType::Int {
            width: IntWidth::Tiny,
            unsigned: false,
        },
        DataType::Int {
            width: IntWidth::Small,
            unsigned: false,
        },
        DataType::Int {
            width: IntWidth::Int,
            unsigned: true,
        },
        DataType::BIGINT,
        DataType::Null,
        DataType::DOUBLE,
        DataType::FLOAT,
        DataType::Decimal {
            precision: 10,
            scale: 2,
            unsigned: false,
        },
        DataType::varchar(20),
        DataType::Date,
        DataType::DateTime { fsp: 6 },
        DataType::Timestamp { fsp: 0 },
    ];
    let values = [
        Value::Int(-7),
        Value::Int(-300),
        Value::UInt(4_000_000_000),
        Value::Int(i64::MIN),
        Value::Null,
        Value::Double(0.1),
        Value::Double(1.5),
        Value::Decimal("3.5".parse().expect("decimal")),
        Value::text("héllo"),
        Value::Date(dt.date),
        Value::DateTime(dt),
        Value::DateTime(DateTime {
            microsecond: 0,
            ..dt
        }),
    ];
    let cols = columns(&types);
    let mut bytes = Vec::new();
    write_binary_row(&mut bytes, &values, &types).expect("encodes");
    let row = ParseBuf(&bytes)
        .parse::<RowDeserializer<ServerSide, Binary>>(cols.clone())
        .expect("binary row parses")
        .into_inner()
        .unwrap();
    let want = vec![
        McValue::Int(-7),
        McValue::Int(-300),
        // mysql_common widens every unsigned type but BIGINT into Int.
        McValue::Int(4_000_000_000),
        McValue::Int(i64::MIN),
        McValue::NULL,
        McValue::Double(0.1),
        McValue::Float(1.5),
        McValue::Bytes(b"3.50".to_vec()),
        McValue::Bytes("héllo".as_bytes().to_vec()),
        McValue::Date(2024, 2, 29, 0, 0, 0, 0),
        McValue::Date(2024, 2, 29, 13, 14, 15, 16),
        McValue::Date(2024, 2, 29, 13, 14, 15, 0),
    ];
    assert_eq!(row, want);

    bytes.clear();
    write_text_row(&mut bytes, &values, &types);
    let row = ParseBuf(&bytes)
        .parse::<RowDeserializer<(), Text>>(cols)
        .expect("text row parses")
        .into_inner()
        .unwrap();
    let text: Vec<Option<String>> = row
        .into_iter()
        .map(|v| match v {
            McValue::NULL => None,
            McValue::Bytes(b) => Some(String::from_utf8(b).expect("utf8")),
            other => panic!("text rows hold bytes, got {other:?}"),
        })
        .collect();
    let want = [
        "-7",
        "-300",
        "4000000000",
        "-9223372036854775808",
        "",
        "0.1",
        "1.5",
        "3.50",
        "héllo",
        "2024-02-29",
        "2024-02-29 13:14:15.000016",
        "2024-02-29 13:14:15",
    ];
    for (i, (got, want)) in text.iter().zip(want).enumerate() {
        if i == 4 {
            assert_eq!(got, &None);
        } else {
            assert_eq!(got.as_deref(), Some(want));
        }
    }
}

#[test]
fn mysql_common_reads_our_prepare_ok() {
    let mut bytes = Vec::new();
    let ok = PrepareOk {
        statement_id: 9,
        column_count: 3,
        param_count: 2,
        warnings: 1,
    };
    write_prepare_ok(&mut bytes, &ok);
    let p: mc::StmtPacket = ParseBuf(&bytes).parse(()).expect("parses");
    assert_eq!(
        (
            p.statement_id(),
            p.num_columns(),
            p.num_params(),
            p.warning_count()
        ),
        (9, 3, 2, 1)
    );
}

#[test]
fn we_read_mysql_common_execute_requests() {
    let params = [
        McValue::Int(-5),
        McValue::UInt(u64::MAX),
        McValue::NULL,
        McValue::Float(0.5),
        McValue::Double(-2.25),
        McValue::Bytes(b"abc".to_vec()),
        McValue::Date(2024, 1, 2, 3, 4, 5, 6),
        McValue::Date(2024, 1, 2, 0, 0, 0, 0),
        McValue::Time(true, 2, 3, 4, 5, 0),
    ];
    let (req, as_long_data) = mc::ComStmtExecuteRequestBuilder::new(42).build(&params);
    assert!(!as_long_data);
    let mut bytes = Vec::new();
    req.serialize(&mut bytes);
    assert_eq!(
        parse_command(&bytes, capability::SERVER_DEFAULT),
        Ok(Command::StmtExecute { statement_id: 42 })
    );
    let mut cached = [None; 9];
    let e = parse_execute(&bytes, &mut cached, None).expect("parses");
    let got: Vec<_> = e.params().collect();
    let d = Date {
        year: 2024,
        month: 1,
        day: 2,
    };
    let want = vec![
        ParamValue::Int(-5),
        ParamValue::UInt(u64::MAX),
        ParamValue::Null,
        ParamValue::Double(0.5),
        ParamValue::Double(-2.25),
        ParamValue::Bytes(b"abc"),
        ParamValue::DateTime(DateTime {
            date: d,
            hour: 3,
            minute: 4,
            second: 5,
            microsecond: 6,
        }),
        ParamValue::DateTime(DateTime::from_date(d)),
        ParamValue::Time {
            negative: true,
            days: 2,
            hour: 3,
            minute: 4,
            second: 5,
            microsecond: 0,
        },
    ];
    assert_eq!(got, want);
}

#[test]
fn we_read_mysql_common_change_user() {
    let more = mc::ComChangeUserMoreData::new(45)
        .with_auth_plugin(Some(mc::AuthPlugin::MysqlNativePassword));
    let cu = mc::ComChangeUser::new()
        .with_user(Some(&b"bob"[..]))
        .with_database(Some(&b"db"[..]))
        .with_auth_plugin_data(Some(&[1u8; 20][..]))
        .with_more_data(Some(more));
    let mut bytes = Vec::new();
    cu.serialize(&mut bytes);
    let Ok(Command::ChangeUser(c)) = parse_command(&bytes, capability::SERVER_DEFAULT) else {
        panic!("did not parse {bytes:?}")
    };
    assert_eq!(
        (c.username, c.schema, c.charset),
        (&b"bob"[..], &b"db"[..], Some(45))
    );
    assert_eq!(c.auth_response, &[1u8; 20]);
    assert_eq!(c.auth_plugin, Some(&b"mysql_native_password"[..]));
}
