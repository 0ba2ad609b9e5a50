//! Storage engine names in CREATE and ALTER TABLE. manycore has one storage, which answers
//! to InnoDB; a table declared with another engine MariaDB knows is created all the same
//! (and shown as InnoDB), as before this check existed. A name MariaDB does not know is
//! error 1286, as under MariaDB's default sql_mode (NO_ENGINE_SUBSTITUTION).

use crate::error::{Error, ErrorCode, Result};
use sqlparser::ast;

/// The engines MariaDB 10.11 (Debian's build, no extra plugins) creates tables with, and
/// the aliases it resolves: (name, canonical name).
const KNOWN: &[(&str, &str)] = &[
    ("InnoDB", "InnoDB"),
    ("INNOBASE", "InnoDB"),
    ("MyISAM", "MyISAM"),
    ("Aria", "Aria"),
    ("MEMORY", "MEMORY"),
    ("HEAP", "MEMORY"),
    ("CSV", "CSV"),
    ("MRG_MyISAM", "MRG_MyISAM"),
    ("MERGE", "MRG_MyISAM"),
    ("SEQUENCE", "SEQUENCE"),
    ("PERFORMANCE_SCHEMA", "PERFORMANCE_SCHEMA"),
];

/// The canonical name of the engine `name` names, or 1286.
pub fn resolve(name: &str) -> Result<&'static str> {
    KNOWN
        .iter()
        .find(|(known, _)| known.eq_ignore_ascii_case(name))
        .map(|&(_, canonical)| canonical)
        .ok_or_else(|| {
            Error::new(
                ErrorCode::UnknownStorageEngine,
                format!("Unknown storage engine '{name}'"),
            )
        })
}

/// 1286 if the last ENGINE of a CREATE TABLE's options (the one MariaDB keeps) is unknown.
pub fn check_create(create: &ast::CreateTable) -> Result<()> {
    let options = crate::ddl::table_options(&create.table_options);
    let engine = options.iter().rev().find_map(|option| match option {
        ast::SqlOption::NamedParenthesizedList(list)
            if list.key.value.eq_ignore_ascii_case("ENGINE") =>
        {
            list.name.as_ref()
        }
        _ => None,
    });
    match engine {
        Some(engine) => resolve(&engine.value).map(|_| ()),
        None => Ok(()),
    }
}
