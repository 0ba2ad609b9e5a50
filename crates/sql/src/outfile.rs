//! SELECT ... INTO OUTFILE / INTO DUMPFILE: a SELECT's rows written to a new file on the
//! server (`server_file`), as MariaDB writes them.
//!
//! The INTO clause is taken out of the statement's text before sqlparser reads the SELECT
//! (`select_into::split`, which reads the file clause with `parse_clause`); the SELECT then
//! runs as any other, into a `FileSink` instead of the client, and the client gets an OK
//! whose affected rows are the rows written.
//!
//! Invariants:
//! (1) OUTFILE writes fields and lines with the options LOAD DATA reads (`load_data::Format`,
//!     one parser), so a file written with options loads back with the same options. A
//!     field's bytes are escaped with the escape character (`\` by default, none with
//!     ESCAPED BY '') where they are the escape character, NUL (as `\0`), the first byte
//!     of the line terminator, and the enclosing character in an enclosed field or else
//!     the first byte of the field terminator (MariaDB's NEED_ESCAPING). NULL is `\N`, or
//!     the word NULL without an escape character, and is never enclosed. OPTIONALLY
//!     ENCLOSED BY encloses only string and temporal columns.
//! (2) DUMPFILE writes each column's bytes with nothing between (NULL as one NUL byte).
//!     MariaDB refuses (1172) only a third row, so two rows are written whole; as there.
//! (3) The FILE privilege (1227) is checked before the file is created; the file is
//!     created before the SELECT runs (1086 if it exists) and stays, partly written, when
//!     the SELECT fails later, as in MariaDB.
//!
//! Not built: character sets other than utf8mb4/utf8mb3/binary (1235), fixed-width rows
//! (FIELDS TERMINATED BY '' ENCLOSED BY '', 1235), INTO OUTFILE inside a trigger body
//! (`compound`, 1235).

use crate::error::{Error, ErrorCode, Result};
use crate::load_data::{self, Format};
use crate::parse;
use crate::sink::{Columns, OkInfo, ResultSink};
use manycore_types::{DataType, Value};
use sqlparser::parser::{Parser, ParserError};
use std::io::Write;

/// The INTO OUTFILE or INTO DUMPFILE clause of a SELECT.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntoFile {
    pub dumpfile: bool,
    pub file: String,
    pub charset: Option<String>,
    pub format: Format,
}

/// The rest of an INTO OUTFILE or INTO DUMPFILE clause, `parser` being after INTO.
pub(crate) fn parse_clause(parser: &mut Parser) -> std::result::Result<IntoFile, ParserError> {
    let dumpfile = parse::word(&parser.next_token()).as_deref() == Some("DUMPFILE");
    let file = parser.parse_literal_string()?;
    let (charset, format) = match dumpfile {
        true => (None, Format::default()),
        false => (
            load_data::parse_charset(parser)?,
            load_data::parse_format(parser)?,
        ),
    };
    Ok(IntoFile {
        dumpfile,
        file,
        charset,
        format,
    })
}

/// Whether MariaDB gives a column of `data_type` STRING_RESULT (OPTIONALLY ENCLOSED BY
/// encloses only those): strings and temporal values, not numbers.
fn is_string_result(data_type: &DataType) -> bool {
    !data_type.is_numeric()
}

/// Writes rows in OUTFILE's text form (invariant (1)).
pub(crate) struct RowWriter<'a> {
    format: &'a Format,
    escape: Option<u8>,
    enclosed: Option<u8>,
    line_term: &'a [u8],
    field_term_byte: Option<u8>,
    line_term_byte: Option<u8>,
    /// The byte escaped in an enclosed field: the enclosing one.
    enclosed_byte: Option<u8>,
}

/// Letters that follow an escape character with another meaning (`\n`, `\N`, ...): an
/// enclosing letter among them is doubled, not escaped, and a field terminator among them
/// is not escaped at all (MariaDB's ESCAPE_CHARS).
const ESCAPE_LETTERS: &[u8] = b"ntrb0ZN";

impl<'a> RowWriter<'a> {
    pub(crate) fn new(format: &'a Format, escape: Option<u8>) -> RowWriter<'a> {
        // An empty LINES TERMINATED BY is the field terminator, as MariaDB writes.
        let line_term = match format.line_term.is_empty() {
            true => &format.field_term[..],
            false => &format.line_term[..],
        };
        RowWriter {
            format,
            escape,
            enclosed: format.enclosed.first().copied(),
            line_term,
            field_term_byte: format.field_term.first().copied(),
            line_term_byte: line_term.first().copied(),
            enclosed_byte: format.enclosed.first().copied(),
        }
    }

    /// Appends one line: `values[i]` is NULL or its text as the client would get it.
    pub(crate) fn write_row(&self, out: &mut Vec<u8>, values: &[Value], types: &[DataType]) {
        out.extend_from_slice(&self.format.line_start);
        for (i, (value, data_type)) in values.iter().zip(types).enumerate() {
            if i > 0 {
                out.extend_from_slice(&self.format.field_term);
            }
            // OPTIONALLY matters only with a field terminator, as in MariaDB.
            let optional = self.format.optionally && !self.format.field_term.is_empty();
            let enclose = self
                .enclosed
                .filter(|_| !optional || is_string_result(data_type));
            let Some(bytes) = text_of(value, data_type) else {
                match self.escape {
                    Some(escape) => out.extend_from_slice(&[escape, b'N']),
                    None => out.extend_from_slice(b"NULL"),
                }
                continue;
            };
            out.extend(enclose);
            self.write_escaped(out, &bytes, enclose.is_some());
            out.extend(enclose);
        }
        out.extend_from_slice(self.line_term);
    }

    fn write_escaped(&self, out: &mut Vec<u8>, bytes: &[u8], enclosed: bool) {
        let Some(escape) = self.escape else {
            out.extend_from_slice(bytes);
            return;
        };
        let ambiguous = |byte: Option<u8>| byte.is_some_and(|b| ESCAPE_LETTERS.contains(&b));
        let separator = if enclosed {
            self.enclosed_byte
        } else {
            self.field_term_byte
        };
        for &c in bytes {
            let needs =
                c == escape || Some(c) == separator || Some(c) == self.line_term_byte || c == 0;
            // A terminator that is an escape letter cannot be escaped unenclosed.
            let skip =
                !enclosed && ambiguous(self.field_term_byte) && Some(c) == self.field_term_byte;
            if needs && !skip {
                let doubled =
                    enclosed && Some(c) == self.enclosed_byte && ambiguous(self.enclosed_byte);
                out.push(if doubled { c } else { escape });
                out.push(if c == 0 { b'0' } else { c });
            } else {
                out.push(c);
            }
        }
    }
}

/// A value's bytes as the text protocol sends them; None for NULL.
fn text_of(value: &Value, data_type: &DataType) -> Option<Vec<u8>> {
    match value {
        Value::Null => None,
        Value::Bytes(b) => Some(b.clone()),
        _ => {
            let mut out = Vec::new();
            manycore_types::format::write_text(value, data_type, &mut out);
            Some(out)
        }
    }
}

/// Receives the SELECT's result in place of the client and writes it to the file; ends
/// with the OK the client gets.
pub(crate) struct FileSink<'a> {
    into: &'a IntoFile,
    writer: RowWriter<'a>,
    file: std::io::BufWriter<std::fs::File>,
    types: Vec<DataType>,
    rows: u64,
    line: Vec<u8>,
    client: &'a mut dyn ResultSink,
}

impl<'a> FileSink<'a> {
    pub(crate) fn new(
        into: &'a IntoFile,
        escape: Option<u8>,
        file: std::fs::File,
        client: &'a mut dyn ResultSink,
    ) -> FileSink<'a> {
        FileSink {
            into,
            writer: RowWriter::new(&into.format, escape),
            file: std::io::BufWriter::new(file),
            types: Vec::new(),
            rows: 0,
            line: Vec::new(),
            client,
        }
    }

    fn write(&mut self) -> Result<()> {
        let written = self.file.write_all(&self.line);
        self.line.clear();
        written.map_err(|e| crate::server_file::write_failed(&self.into.file, &e))
    }
}

impl ResultSink for FileSink<'_> {
    fn result_set_start(&mut self, columns: &Columns) -> Result<()> {
        self.types = columns.iter().map(|c| c.data_type.clone()).collect();
        Ok(())
    }

    fn row(&mut self, values: &[Value]) -> Result<()> {
        self.rows += 1;
        if self.into.dumpfile {
            if self.rows > 2 {
                return Err(Error::new(
                    ErrorCode::TooManyRows,
                    "Result consisted of more than one row",
                ));
            }
            for (value, data_type) in values.iter().zip(&self.types) {
                match text_of(value, data_type) {
                    Some(bytes) => self.line.extend_from_slice(&bytes),
                    None => self.line.push(0),
                }
            }
        } else {
            self.writer.write_row(&mut self.line, values, &self.types);
        }
        self.write()
    }

    fn result_set_end(&mut self, status_flags: u16, warnings: u16, more: bool) -> Result<()> {
        self.file
            .flush()
            .map_err(|e| crate::server_file::write_failed(&self.into.file, &e))?;
        let ok = OkInfo {
            affected_rows: self.rows,
            status_flags,
            warnings,
            ..OkInfo::default()
        };
        self.client.ok(&ok, more)
    }

    fn ok(&mut self, ok: &OkInfo, more: bool) -> Result<()> {
        self.client.ok(ok, more)
    }

    fn field_list(&mut self, columns: &[crate::sink::ColumnInfo]) -> Result<()> {
        self.client.field_list(columns)
    }

    fn discard_unfinished(&mut self) {
        self.client.discard_unfinished()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Value {
        Value::Bytes(s.as_bytes().to_vec())
    }

    /// What `RowWriter` writes is what `load_data::Reader` reads back (invariant (1)).
    #[test]
    fn escaped_rows_read_back_as_written() {
        let awkward = "tab\there\nnew \\back \"q\" ,c \0nul NULL";
        let row = [text(awkward), Value::Null, Value::Int(7), text("")];
        let types = [
            DataType::varchar(50),
            DataType::varchar(5),
            DataType::Int {
                width: manycore_types::IntWidth::Int,
                unsigned: false,
            },
            DataType::varchar(5),
        ];
        let formats = [
            Format::default(),
            Format {
                field_term: b",".to_vec(),
                enclosed: b"\"".to_vec(),
                optionally: true,
                line_term: b"\r\n".to_vec(),
                ..Format::default()
            },
            Format {
                field_term: b"|".to_vec(),
                enclosed: b"'".to_vec(),
                line_start: b">>".to_vec(),
                ..Format::default()
            },
        ];
        for format in &formats {
            let mut out = Vec::new();
            let writer = RowWriter::new(format, Some(b'\\'));
            writer.write_row(&mut out, &row, &types);
            writer.write_row(&mut out, &row, &types);
            let lines = load_data::read_fields(&out, format, Some(b'\\'), row.len());
            let expected: Vec<Option<Vec<u8>>> = vec![
                Some(awkward.as_bytes().to_vec()),
                None,
                Some(b"7".to_vec()),
                Some(Vec::new()),
            ];
            assert_eq!(lines, vec![expected.clone(), expected], "{format:?}");
        }
    }

    #[test]
    fn without_an_escape_character_nothing_is_escaped_and_null_is_a_word() {
        let format = Format {
            field_term: b",".to_vec(),
            enclosed: b"\"".to_vec(),
            escaped: Some(Vec::new()),
            ..Format::default()
        };
        let mut out = Vec::new();
        let types = [DataType::varchar(9), DataType::varchar(9)];
        RowWriter::new(&format, None).write_row(&mut out, &[text("a\"b\\"), Value::Null], &types);
        assert_eq!(out, b"\"a\"b\\\",NULL\n");
    }
}
