//! Encodes statement results as protocol packets: the server side of `ResultSink`.
//!
//! Invariant: a result set is column count, definitions, [EOF], rows, then EOF or OK;
//! `more_results` sets SERVER_MORE_RESULTS_EXISTS on its last packet and nothing else.

use crate::durability::ReplyStart;
use manycore_protocol::packet::PacketWriter;
use manycore_protocol::prepared::write_prepare_response;
use manycore_protocol::response::{status, write_eof, write_ok, OkPacket};
use manycore_protocol::resultset::{
    column_flag, write_field_list_definition, ColumnDefinition, ResultSetEncoder,
};
use manycore_sql::{ColumnInfo, Columns, Error, ErrorCode, OkInfo, ResultSink};
use manycore_types::{DataType, Value};
use std::sync::Arc;

/// The columns of the last result set written, with their types, reused across
/// statements so encoding rows allocates nothing, and kept so a statement executed again
/// does not take them again; and the encoded definitions of recent plans' columns.
#[derive(Default)]
pub struct ColumnTypes {
    types: Vec<DataType>,
    source: Option<Columns>,
    /// By the address of the `Columns` they encode (held in the entry, so the address is
    /// not reused while the entry lives).
    encoded: foldhash::HashMap<*const ColumnInfo, EncodedDefinitions>,
}

/// The column count and definition packets of `columns`, as written starting at sequence
/// id `first`.
struct EncodedDefinitions {
    columns: Columns,
    first: u8,
    packets: u8,
    bytes: Box<[u8]>,
}

/// Plans whose definitions a connection keeps encoded; more are forgotten all at once (an
/// OLTP client runs a few dozen statement shapes, and sysbench one per table).
const MAX_ENCODED: usize = 64;

impl ColumnTypes {
    fn describe(&mut self, columns: &Columns) {
        if self
            .source
            .as_ref()
            .is_some_and(|s| Arc::ptr_eq(s, columns))
        {
            return;
        }
        self.types.clear();
        self.types
            .extend(columns.iter().map(|c| c.data_type.clone()));
        self.source = Some(Arc::clone(columns));
    }

    /// Writes the definitions of `columns`: a copy of the bytes written for them before
    /// if those started at the same sequence id. Encoding a point select's one definition
    /// costs ~650 instructions, 8% of a text query's user time; the copy, ~100. `Columns`
    /// never change once built, and the encoder's flags are the connection's, so the same
    /// columns at the same sequence id encode to the same bytes.
    fn write_definitions(
        &mut self,
        out: &mut Vec<u8>,
        writer: &mut PacketWriter,
        encoder: &ResultSetEncoder,
        columns: &Columns,
    ) {
        let first = writer.sequence_id();
        if let Some(e) = self.encoded.get(&columns.as_ptr()) {
            if e.first == first {
                debug_assert!(Arc::ptr_eq(&e.columns, columns));
                out.extend_from_slice(&e.bytes);
                writer.set_sequence_id(first.wrapping_add(e.packets));
                return;
            }
        }
        let start = out.len();
        encoder.write_definitions(out, writer, columns.iter().map(definition));
        if self.encoded.len() >= MAX_ENCODED {
            self.encoded.clear();
        }
        let encoded = EncodedDefinitions {
            columns: Arc::clone(columns),
            first,
            packets: writer.sequence_id().wrapping_sub(first),
            bytes: out[start..].into(),
        };
        self.encoded.insert(columns.as_ptr(), encoded);
    }
}

pub struct WireSink<'a> {
    out: &'a mut Vec<u8>,
    writer: &'a mut PacketWriter,
    types: &'a mut ColumnTypes,
    encoder: ResultSetEncoder,
    status_flags: u16,
    binary: bool,
    /// A prepared statement's columns as the client holds them, under CACHE_METADATA:
    /// MariaDB Connector/J takes every result set's definitions it reads as the
    /// statement's, so after a CALL it holds the last result set's. Only the reply's
    /// first result set may leave its definitions out (`first_result_set`); a CALL's
    /// later ones always carry theirs.
    held_columns: Option<&'a mut Columns>,
    first_result_set: bool,
    /// Where the last complete reply ends: `discard_unfinished` cuts back to it.
    finished: ReplyStart,
    /// What `held_columns` was before the unfinished statement replaced it.
    held_before: Option<Columns>,
}

impl<'a> WireSink<'a> {
    pub fn new(
        out: &'a mut Vec<u8>,
        writer: &'a mut PacketWriter,
        types: &'a mut ColumnTypes,
        encoder: ResultSetEncoder,
        status_flags: u16,
        binary: bool,
        held_columns: Option<&'a mut Columns>,
    ) -> WireSink<'a> {
        assert!(held_columns.is_none() || encoder.cache_metadata);
        let finished = ReplyStart::new(out, writer);
        WireSink {
            finished,
            held_before: None,
            out,
            writer,
            types,
            encoder,
            status_flags,
            binary,
            held_columns,
            first_result_set: true,
        }
    }

    /// COM_STMT_PREPARE's reply.
    pub fn prepare_ok(
        &mut self,
        statement_id: u32,
        param_count: usize,
        columns: &[ColumnInfo],
        status_flags: u16,
    ) {
        let param_count = u16::try_from(param_count).expect("parameter count fits the wire");
        write_prepare_response(
            self.out,
            self.writer,
            &self.encoder,
            statement_id,
            param_count,
            columns.iter().map(definition),
            status_flags,
        );
    }
}

/// The wire description of one result column.
fn definition(column: &ColumnInfo) -> ColumnDefinition<'_> {
    let mut definition = ColumnDefinition::new(column.name.as_bytes(), &column.data_type)
        .with_table(
            column.schema.as_bytes(),
            column.table.as_bytes(),
            column.org_table.as_bytes(),
            column.org_name.as_bytes(),
        );
    definition.column_length = column.length;
    let flags = [
        (column.not_null, column_flag::NOT_NULL),
        (column.primary_key, column_flag::PRI_KEY),
        (column.unique_key, column_flag::UNIQUE_KEY),
        (column.multiple_key, column_flag::MULTIPLE_KEY),
        (column.auto_increment, column_flag::AUTO_INCREMENT),
    ];
    for (set, flag) in flags {
        if set {
            definition.flags |= flag;
        }
    }
    definition
}

fn with_more(flags: u16, more_results: bool) -> u16 {
    if more_results {
        flags | status::MORE_RESULTS_EXISTS
    } else {
        flags
    }
}

impl ResultSink for WireSink<'_> {
    fn result_set_start(&mut self, columns: &Columns) -> manycore_sql::Result<()> {
        self.types.describe(columns);
        let first = std::mem::replace(&mut self.first_result_set, false);
        if let Some(held) = self.held_columns.as_deref_mut() {
            // The same plan's columns (one pointer compare), or a new plan's with the
            // same definitions (after a re-bind): the client holds them either way.
            let same = first && (Arc::ptr_eq(held, columns) || **held == **columns);
            if !Arc::ptr_eq(held, columns) {
                let before = std::mem::replace(held, Arc::clone(columns));
                self.held_before.get_or_insert(before);
            }
            if same {
                self.encoder.write_cached_metadata(
                    self.out,
                    self.writer,
                    columns.len(),
                    self.status_flags,
                );
                return Ok(());
            }
        }
        self.types
            .write_definitions(self.out, self.writer, &self.encoder, columns);
        self.encoder
            .write_metadata_end(self.out, self.writer, self.status_flags);
        Ok(())
    }

    fn row(&mut self, values: &[Value]) -> manycore_sql::Result<()> {
        if self.binary {
            self.encoder
                .write_binary_row(self.out, self.writer, values, &self.types.types)
                .map_err(|e| Error::new(ErrorCode::UnknownError, e.to_string()))
        } else {
            self.encoder
                .write_text_row(self.out, self.writer, values, &self.types.types);
            Ok(())
        }
    }

    fn result_set_end(
        &mut self,
        status_flags: u16,
        warnings: u16,
        more_results: bool,
    ) -> manycore_sql::Result<()> {
        let flags = with_more(status_flags, more_results);
        self.encoder
            .write_end(self.out, self.writer, warnings, flags);
        self.finish();
        Ok(())
    }

    fn ok(&mut self, ok: &OkInfo, more_results: bool) -> manycore_sql::Result<()> {
        let packet = OkPacket {
            affected_rows: ok.affected_rows,
            last_insert_id: ok.last_insert_id,
            status_flags: with_more(ok.status_flags, more_results),
            warnings: ok.warnings,
            info: ok.info.as_bytes(),
        };
        self.writer.write_with(self.out, |o| write_ok(o, &packet));
        self.finish();
        Ok(())
    }

    fn out_parameters(
        &mut self,
        columns: &Columns,
        values: &[Value],
        status_flags: u16,
        warnings: u16,
    ) -> manycore_sql::Result<()> {
        // As MySQL's server, the flags also go on the definitions' EOF (when sent).
        let flags = status_flags | status::PS_OUT_PARAMS;
        let connection_flags =
            std::mem::replace(&mut self.status_flags, flags | status::MORE_RESULTS_EXISTS);
        let sent = self
            .result_set_start(columns)
            .and_then(|()| self.row(values))
            .and_then(|()| self.result_set_end(flags, warnings, true));
        self.status_flags = connection_flags;
        sent
    }

    fn field_list(&mut self, columns: &[ColumnInfo]) -> manycore_sql::Result<()> {
        for column in columns {
            let default = column.default.as_deref().map(str::as_bytes);
            let definition = definition(column);
            self.writer.write_with(self.out, |o| {
                write_field_list_definition(o, &definition, default)
            });
        }
        let flags = self.status_flags;
        self.writer.write_with(self.out, |o| write_eof(o, 0, flags));
        self.finish();
        Ok(())
    }

    fn discard_unfinished(&mut self) {
        self.out.truncate(self.finished.output_len);
        self.writer.set_sequence_id(self.finished.sequence_id);
        if let (Some(held), Some(before)) =
            (self.held_columns.as_deref_mut(), self.held_before.take())
        {
            *held = before;
        }
    }
}

impl WireSink<'_> {
    /// A complete reply was written: nothing before here is taken back.
    fn finish(&mut self) {
        self.finished = ReplyStart::new(self.out, self.writer);
        self.held_before = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use manycore_protocol::handshake::mariadb_capability;

    /// A text result set of `columns` with one row, its first packet at sequence id
    /// `first`, through a sink that keeps `types` from the statements before.
    fn result_set(types: &mut ColumnTypes, columns: &Columns, first: u8) -> Vec<u8> {
        let (mut out, mut writer) = (Vec::new(), PacketWriter::new(first));
        let encoder = ResultSetEncoder::new(0, 0);
        let mut sink = WireSink::new(&mut out, &mut writer, types, encoder, 2, false, None);
        sink.result_set_start(columns).expect("metadata");
        sink.row(&[Value::Int(7), Value::Double(0.5)]).expect("row");
        sink.result_set_end(2, 0, false).expect("end");
        out
    }

    #[test]
    fn definitions_written_again_are_what_encoding_gives() {
        let columns = |a: &str| -> Columns {
            Arc::from([
                ColumnInfo::expression(a, DataType::BIGINT, true),
                ColumnInfo::expression("b", DataType::DOUBLE, false),
            ])
        };
        let (ab, cb) = (columns("a"), columns("c"));
        let encoded =
            |columns: &Columns, first| result_set(&mut ColumnTypes::default(), columns, first);
        let mut kept = ColumnTypes::default();
        // Again at the same sequence id (copied), after another plan's (kept side by
        // side), at others (a later result set of a batch; 255 wraps).
        let runs = [
            (&ab, 1),
            (&ab, 1),
            (&cb, 1),
            (&ab, 1),
            (&cb, 1),
            (&ab, 4),
            (&ab, 4),
            (&ab, 255),
            (&ab, 255),
        ];
        for (columns, first) in runs {
            assert_eq!(
                result_set(&mut kept, columns, first),
                encoded(columns, first)
            );
        }
        assert_eq!(kept.encoded.len(), 2);
        assert_ne!(encoded(&ab, 1), encoded(&cb, 1));
    }

    /// Whether each result set of a CALL's binary reply under CACHE_METADATA carried its
    /// definitions (the column count's "metadata follows" byte), with the client holding
    /// `held` before it; and what the client holds after it.
    fn call_reply(held: &mut Columns, result_sets: &[&Columns]) -> Vec<bool> {
        let (mut out, mut writer) = (Vec::new(), PacketWriter::new(1));
        let encoder = ResultSetEncoder::new(0, mariadb_capability::CACHE_METADATA);
        let mut types = ColumnTypes::default();
        let mut sink = WireSink::new(
            &mut out,
            &mut writer,
            &mut types,
            encoder,
            2,
            true,
            Some(held),
        );
        let mut starts = Vec::new();
        for columns in result_sets {
            starts.push(sink.out.len());
            sink.result_set_start(columns).expect("metadata");
            sink.result_set_end(2, 0, true).expect("end");
        }
        sink.ok(&OkInfo::default(), false).expect("ok");
        // Each column count packet: a 4-byte header, the count (one byte here), the flag.
        starts.iter().map(|&start| out[start + 5] == 1).collect()
    }

    #[test]
    fn a_call_leaves_out_definitions_only_of_its_first_result_set() {
        let columns = |name: &str| -> Columns {
            Arc::from([ColumnInfo::expression(name, DataType::BIGINT, false)])
        };
        let (rows, out_parameters) = (columns("f"), columns("doubled"));
        // A prepared CALL's PREPARE describes no columns.
        let mut held: Columns = Arc::from([]);
        let reply = [&rows, &out_parameters];
        assert_eq!(call_reply(&mut held, &reply), [true, true]);
        // The client now holds the last definitions it read (MariaDB Connector/J).
        assert!(Arc::ptr_eq(&held, &out_parameters));
        assert_eq!(call_reply(&mut held, &reply), [true, true]);
        // A reply whose first result set has the held columns leaves them out.
        assert_eq!(
            call_reply(&mut held, &[&out_parameters, &rows]),
            [false, true]
        );
        assert!(Arc::ptr_eq(&held, &rows));
    }
}
