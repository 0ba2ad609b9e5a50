//! Account statements and their parser: CREATE/ALTER/DROP/RENAME USER, SET PASSWORD,
//! GRANT, REVOKE, SHOW GRANTS. sqlparser covers these only partly for MySQL (user@host
//! names, IDENTIFIED WITH/VIA, REQUIRE, ACCOUNT LOCK), so they have their own small
//! tokenizer and recursive-descent parser, reached from `parse`'s pre-dispatch on the
//! leading keywords.
//!
//! Grammar (MySQL/MariaDB, the subset supported):
//!   CREATE [OR REPLACE] USER [IF NOT EXISTS] spec [, spec]... [options]
//!   ALTER USER [IF EXISTS] spec [, spec]... [options]
//!   DROP USER [IF EXISTS] user [, user]...
//!   RENAME USER user TO user [, user TO user]...
//!   SET PASSWORD [FOR user] = PASSWORD('text') | 'hash'
//!   GRANT privileges ON level TO spec [, spec]... [REQUIRE ...] [WITH GRANT OPTION]
//!   privileges: ALL [PRIVILEGES] | priv [(column [, column]...)] [, ...]
//!               (a column list only after SELECT, INSERT, UPDATE, REFERENCES)
//!   REVOKE privileges ON level FROM user [, user]...
//!   REVOKE ALL [PRIVILEGES], GRANT OPTION FROM user [, user]...
//!   SHOW GRANTS [FOR user]
//!   spec:    user [IDENTIFIED BY 'text' | IDENTIFIED BY PASSWORD 'hash'
//!                 | IDENTIFIED {WITH|VIA} plugin [{BY|USING} 'text' | AS 'hash'
//!                 | USING PASSWORD('text')]]
//!   user:    name[@host] | CURRENT_USER[()]   (names quoted with ' " ` or bare)
//!   options: [REQUIRE {NONE | SSL | X509}] [ACCOUNT {LOCK | UNLOCK}]
//!   level:   * | *.* | db.* | db.table | table | {PROCEDURE | FUNCTION} [db.]name

use super::{PasswordPlugin, Privileges};
use crate::error::{Error, Result};
use manycore_storage::RoutineKind;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserName {
    pub user: String,
    pub host: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UserRef {
    Named(UserName),
    Current,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuthOption {
    /// A cleartext password, hashed for the plugin (the account's own, or `plugin`).
    Password {
        plugin: Option<PasswordPlugin>,
        password: String,
    },
    /// An already-hashed password in the plugin's stored form.
    Hash {
        plugin: Option<PasswordPlugin>,
        hash: String,
    },
    /// A plugin without a password.
    Plugin(PasswordPlugin),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserSpec {
    pub user: UserRef,
    pub auth: Option<AuthOption>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AccountOptions {
    pub require_ssl: Option<bool>,
    pub locked: Option<bool>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Level {
    Global,
    /// `db.*`; None: `*`, the current database.
    Database(Option<String>),
    /// `db.table`; None: `table`, in the current database.
    Table(Option<String>, String),
    /// `PROCEDURE db.name` or `FUNCTION db.name`; None: in the current database.
    Routine(RoutineKind, Option<String>, String),
}

/// What GRANT/REVOKE name: a set, or ALL [PRIVILEGES] (whose meaning depends on the level),
/// and column privileges (only at the table level).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrivilegeList {
    pub privileges: Privileges,
    pub all: bool,
    /// Column (as written) -> privileges, in order of first mention.
    pub columns: Vec<(String, Privileges)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AccountStatement {
    CreateUser {
        or_replace: bool,
        if_not_exists: bool,
        users: Vec<UserSpec>,
        options: AccountOptions,
    },
    AlterUser {
        if_exists: bool,
        users: Vec<UserSpec>,
        options: AccountOptions,
    },
    DropUser {
        if_exists: bool,
        users: Vec<UserRef>,
    },
    RenameUser(Vec<(UserRef, UserRef)>),
    SetPassword {
        user: Option<UserRef>,
        auth: AuthOption,
    },
    Grant {
        privileges: PrivilegeList,
        level: Level,
        users: Vec<UserSpec>,
        options: AccountOptions,
    },
    Revoke {
        privileges: PrivilegeList,
        level: Level,
        users: Vec<UserRef>,
    },
    RevokeAll {
        users: Vec<UserRef>,
    },
    ShowGrants(Option<UserRef>),
}

impl AccountStatement {
    /// The statement's name in "Operation X failed" errors.
    pub fn operation(&self) -> &'static str {
        match self {
            AccountStatement::CreateUser { .. } => "CREATE USER",
            AccountStatement::AlterUser { .. } => "ALTER USER",
            AccountStatement::DropUser { .. } => "DROP USER",
            AccountStatement::RenameUser(_) => "RENAME USER",
            AccountStatement::SetPassword { .. } => "SET PASSWORD",
            AccountStatement::Grant { .. } => "GRANT",
            AccountStatement::Revoke { .. } | AccountStatement::RevokeAll { .. } => "REVOKE",
            AccountStatement::ShowGrants(_) => "SHOW GRANTS",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    /// Unquoted word, upper-cased copy kept for keyword tests.
    Word(String),
    /// Quoted with ' or ": a string (also accepted where a name goes).
    Text(String),
    /// Quoted with `: a name.
    Name(String),
    Punct(char),
}

struct Lexed {
    token: Token,
    offset: usize,
}

fn lex(text: &str) -> std::result::Result<Vec<Lexed>, usize> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        if c.is_ascii_whitespace() || c == b';' {
            i += 1;
        } else if c == b'#' || (c == b'-' && bytes.get(i + 1) == Some(&b'-')) {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && bytes.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
        } else if c == b'\'' || c == b'"' || c == b'`' {
            let mut value = Vec::new();
            i += 1;
            loop {
                match bytes.get(i) {
                    None => return Err(start),
                    Some(&q) if q == c => {
                        if bytes.get(i + 1) == Some(&c) {
                            value.push(c);
                            i += 2;
                        } else {
                            i += 1;
                            break;
                        }
                    }
                    Some(b'\\') if c != b'`' => {
                        let escaped = *bytes.get(i + 1).ok_or(start)?;
                        value.push(match escaped {
                            b'n' => b'\n',
                            b't' => b'\t',
                            b'0' => 0,
                            other => other,
                        });
                        i += 2;
                    }
                    Some(&b) => {
                        value.push(b);
                        i += 1;
                    }
                }
            }
            let value = String::from_utf8_lossy(&value).into_owned();
            let token = if c == b'`' {
                Token::Name(value)
            } else {
                Token::Text(value)
            };
            out.push(Lexed {
                token,
                offset: start,
            });
        } else if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80 {
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric()
                    || bytes[i] == b'_'
                    || bytes[i] == b'$'
                    || bytes[i] >= 0x80)
            {
                i += 1;
            }
            out.push(Lexed {
                token: Token::Word(text[start..i].to_string()),
                offset: start,
            });
        } else {
            out.push(Lexed {
                token: Token::Punct(c as char),
                offset: start,
            });
            i += 1;
        }
    }
    Ok(out)
}

struct Parser<'a> {
    text: &'a str,
    line: usize,
    tokens: Vec<Lexed>,
    at: usize,
}

/// Whether `text` starts an account statement (the pre-dispatch test).
pub fn is_account_statement(text: &str) -> bool {
    let Ok(tokens) = lex(text) else {
        return false;
    };
    let words: Vec<String> = tokens
        .iter()
        .take(4)
        .map(|t| match &t.token {
            Token::Word(w) => w.to_ascii_uppercase(),
            _ => String::new(),
        })
        .collect();
    let w = |i: usize| words.get(i).map(String::as_str).unwrap_or("");
    matches!(
        (w(0), w(1)),
        ("CREATE", "USER")
            | ("ALTER", "USER")
            | ("DROP", "USER")
            | ("RENAME", "USER")
            | ("SET", "PASSWORD")
            | ("SHOW", "GRANTS")
            | ("GRANT", _)
            | ("REVOKE", _)
    ) || (w(0), w(1), w(2), w(3)) == ("CREATE", "OR", "REPLACE", "USER")
}

pub fn parse(text: &str, line: usize) -> Result<AccountStatement> {
    let tokens = lex(text).map_err(|offset| Error::parse_near(&text[offset..], line))?;
    let mut parser = Parser {
        text,
        line,
        tokens,
        at: 0,
    };
    let statement = parser.statement()?;
    parser.end()?;
    Ok(statement)
}

impl Parser<'_> {
    fn error(&self) -> Error {
        let rest = match self.tokens.get(self.at) {
            Some(t) => &self.text[t.offset..],
            None => "",
        };
        let line = self.line
            + self.text[..self.text.len() - rest.len()]
                .matches('\n')
                .count();
        Error::parse_near(rest.trim_end_matches([';', ' ', '\n', '\t', '\r']), line)
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at).map(|t| &t.token)
    }

    fn peek_keyword(&self, keyword: &str) -> bool {
        matches!(self.peek(), Some(Token::Word(w)) if w.eq_ignore_ascii_case(keyword))
    }

    fn eat(&mut self, keyword: &str) -> bool {
        if self.peek_keyword(keyword) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, keyword: &str) -> Result<()> {
        if self.eat(keyword) {
            Ok(())
        } else {
            Err(self.error())
        }
    }

    fn eat_punct(&mut self, c: char) -> bool {
        if self.peek() == Some(&Token::Punct(c)) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect_punct(&mut self, c: char) -> Result<()> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            Err(self.error())
        }
    }

    fn end(&self) -> Result<()> {
        if self.at == self.tokens.len() {
            Ok(())
        } else {
            Err(self.error())
        }
    }

    fn string(&mut self) -> Result<String> {
        match self.peek() {
            Some(Token::Text(s)) => {
                let s = s.clone();
                self.at += 1;
                Ok(s)
            }
            _ => Err(self.error()),
        }
    }

    /// A name: bare word, `quoted` or 'quoted'.
    fn name(&mut self) -> Result<String> {
        match self.peek() {
            Some(Token::Word(s) | Token::Text(s) | Token::Name(s)) => {
                let s = s.clone();
                self.at += 1;
                Ok(s)
            }
            _ => Err(self.error()),
        }
    }

    fn statement(&mut self) -> Result<AccountStatement> {
        if self.eat("CREATE") {
            let or_replace = self.eat("OR");
            if or_replace {
                self.expect("REPLACE")?;
            }
            self.expect("USER")?;
            let if_not_exists = self.eat_words(&["IF", "NOT", "EXISTS"])?;
            let users = self.list(Self::user_spec)?;
            let options = self.options()?;
            return Ok(AccountStatement::CreateUser {
                or_replace,
                if_not_exists,
                users,
                options,
            });
        }
        if self.eat("ALTER") {
            self.expect("USER")?;
            let if_exists = self.eat_words(&["IF", "EXISTS"])?;
            let users = self.list(Self::user_spec)?;
            let options = self.options()?;
            return Ok(AccountStatement::AlterUser {
                if_exists,
                users,
                options,
            });
        }
        if self.eat("DROP") {
            self.expect("USER")?;
            let if_exists = self.eat_words(&["IF", "EXISTS"])?;
            let users = self.list(Self::user)?;
            return Ok(AccountStatement::DropUser { if_exists, users });
        }
        if self.eat("RENAME") {
            self.expect("USER")?;
            let pairs = self.list(|p| {
                let from = p.user()?;
                p.expect("TO")?;
                Ok((from, p.user()?))
            })?;
            return Ok(AccountStatement::RenameUser(pairs));
        }
        if self.eat("SET") {
            self.expect("PASSWORD")?;
            let user = self.for_user()?;
            self.expect_punct('=')?;
            let auth = if let Some(password) = self.password_call()? {
                AuthOption::Password {
                    plugin: None,
                    password,
                }
            } else {
                AuthOption::Hash {
                    plugin: None,
                    hash: self.string()?,
                }
            };
            return Ok(AccountStatement::SetPassword { user, auth });
        }
        if self.eat("SHOW") {
            self.expect("GRANTS")?;
            return Ok(AccountStatement::ShowGrants(self.for_user()?));
        }
        if self.eat("GRANT") {
            let (mut privileges, level) = self.privileges_on()?;
            self.expect("TO")?;
            let users = self.list(Self::user_spec)?;
            let mut options = AccountOptions::default();
            loop {
                if self.eat("REQUIRE") {
                    options.require_ssl = Some(self.require()?);
                } else if self.eat_words(&["WITH", "GRANT", "OPTION"])? {
                    privileges.privileges |= Privileges::GRANT;
                } else {
                    break;
                }
            }
            return Ok(AccountStatement::Grant {
                privileges,
                level,
                users,
                options,
            });
        }
        if self.eat("REVOKE") {
            let start = self.at;
            if self.eat("ALL") {
                self.eat("PRIVILEGES");
                if self.eat_punct(',') {
                    self.eat_words(&["GRANT", "OPTION", "FROM"])?;
                    let users = self.list(Self::user)?;
                    return Ok(AccountStatement::RevokeAll { users });
                }
            }
            self.at = start;
            let (privileges, level) = self.privileges_on()?;
            self.expect("FROM")?;
            let users = self.list(Self::user)?;
            return Ok(AccountStatement::Revoke {
                privileges,
                level,
                users,
            });
        }
        Err(self.error())
    }

    /// Eats `words` if the first is next (true), else nothing (false); Err if the first
    /// is there but not the rest (`IF NOT EXISTS`, `GRANT OPTION`).
    fn eat_words(&mut self, words: &[&str]) -> Result<bool> {
        let Some((first, rest)) = words.split_first() else {
            return Ok(false);
        };
        if !self.eat(first) {
            return Ok(false);
        }
        for word in rest {
            self.expect(word)?;
        }
        Ok(true)
    }

    /// `[FOR user]` (SET PASSWORD, SHOW GRANTS).
    fn for_user(&mut self) -> Result<Option<UserRef>> {
        if self.eat("FOR") {
            Ok(Some(self.user()?))
        } else {
            Ok(None)
        }
    }

    /// `PASSWORD('text')`, if next.
    fn password_call(&mut self) -> Result<Option<String>> {
        if !self.eat("PASSWORD") {
            return Ok(None);
        }
        self.expect_punct('(')?;
        let password = self.string()?;
        self.expect_punct(')')?;
        Ok(Some(password))
    }

    /// `privileges ON level` (GRANT and REVOKE).
    fn privileges_on(&mut self) -> Result<(PrivilegeList, Level)> {
        let privileges = self.privileges()?;
        self.expect("ON")?;
        Ok((privileges, self.level()?))
    }

    fn list<T>(&mut self, mut item: impl FnMut(&mut Self) -> Result<T>) -> Result<Vec<T>> {
        let mut items = vec![item(self)?];
        while self.eat_punct(',') {
            items.push(item(self)?);
        }
        Ok(items)
    }

    fn user(&mut self) -> Result<UserRef> {
        if self.eat("CURRENT_USER") {
            if self.eat_punct('(') {
                self.expect_punct(')')?;
            }
            return Ok(UserRef::Current);
        }
        let user = self.name()?;
        let host = if self.eat_punct('@') {
            self.name()?
        } else {
            "%".to_string()
        };
        Ok(UserRef::Named(UserName { user, host }))
    }

    fn plugin(&mut self) -> Result<PasswordPlugin> {
        let start = self.at;
        let name = self.name()?;
        PasswordPlugin::from_name(&name).ok_or_else(|| {
            self.at = start;
            Error::new(
                crate::error::ErrorCode::PluginIsNotLoaded,
                format!("Plugin '{name}' is not loaded"),
            )
        })
    }

    fn user_spec(&mut self) -> Result<UserSpec> {
        let user = self.user()?;
        if !self.eat("IDENTIFIED") {
            return Ok(UserSpec { user, auth: None });
        }
        let auth = if self.eat("BY") {
            if self.eat("PASSWORD") {
                AuthOption::Hash {
                    plugin: None,
                    hash: self.string()?,
                }
            } else {
                AuthOption::Password {
                    plugin: None,
                    password: self.string()?,
                }
            }
        } else if self.eat("WITH") || self.eat("VIA") {
            let named = self.plugin()?;
            let plugin = Some(named);
            if self.eat("BY") {
                AuthOption::Password {
                    plugin,
                    password: self.string()?,
                }
            } else if self.eat("AS") {
                AuthOption::Hash {
                    plugin,
                    hash: self.string()?,
                }
            } else if self.eat("USING") {
                if let Some(password) = self.password_call()? {
                    AuthOption::Password { plugin, password }
                } else {
                    AuthOption::Hash {
                        plugin,
                        hash: self.string()?,
                    }
                }
            } else {
                AuthOption::Plugin(named)
            }
        } else {
            return Err(self.error());
        };
        Ok(UserSpec {
            user,
            auth: Some(auth),
        })
    }

    /// After REQUIRE: NONE (false) or SSL/X509 (true, both mean "TLS only" here).
    fn require(&mut self) -> Result<bool> {
        if self.eat("NONE") {
            Ok(false)
        } else if self.eat("SSL") || self.eat("X509") {
            Ok(true)
        } else {
            Err(self.error())
        }
    }

    fn options(&mut self) -> Result<AccountOptions> {
        let mut options = AccountOptions::default();
        loop {
            if self.eat("REQUIRE") {
                options.require_ssl = Some(self.require()?);
            } else if self.eat("ACCOUNT") {
                if self.eat("LOCK") {
                    options.locked = Some(true);
                } else {
                    self.expect("UNLOCK")?;
                    options.locked = Some(false);
                }
            } else {
                return Ok(options);
            }
        }
    }

    fn privileges(&mut self) -> Result<PrivilegeList> {
        if self.eat("ALL") {
            self.eat("PRIVILEGES");
            return Ok(PrivilegeList {
                all: true,
                ..PrivilegeList::default()
            });
        }
        let mut list = PrivilegeList::default();
        loop {
            let Some(Token::Word(first)) = self.peek().cloned() else {
                return Err(self.error());
            };
            self.at += 1;
            let mut name = first.to_ascii_uppercase();
            // A name of several words (CREATE TEMPORARY TABLES): each next word that
            // continues one.
            while let Some(Token::Word(next)) = self.peek() {
                let longer = format!("{name} {}", next.to_ascii_uppercase());
                if !Privileges::name_begins_with(&longer) {
                    break;
                }
                self.at += 1;
                name = longer;
            }
            if name == "GRANT" {
                self.expect("OPTION")?;
            }
            let column_privilege = Privileges::COLUMN_NAMES
                .iter()
                .find(|(_, n, _)| *n == name)
                .map(|(p, _, _)| *p);
            match column_privilege {
                Some(p) if self.eat_punct('(') => {
                    for column in self.list(Self::name)? {
                        match list.columns.iter_mut().find(|(c, _)| *c == column) {
                            Some((_, privileges)) => *privileges |= p,
                            None => list.columns.push((column, p)),
                        }
                    }
                    self.expect_punct(')')?;
                }
                _ if name == "USAGE" => {}
                _ => match Privileges::from_name(&name) {
                    Some(p) => list.privileges |= p,
                    None if name == "REFERENCES" => {
                        return Err(Error::not_supported("REFERENCES other than on columns"))
                    }
                    None => {
                        self.at -= 1;
                        return Err(self.error());
                    }
                },
            }
            if !self.eat_punct(',') {
                return Ok(list);
            }
        }
    }

    fn level(&mut self) -> Result<Level> {
        // `ON PROCEDURE db.name`: a table named `function` is `ON function TO ...`.
        let routine = ["PROCEDURE", "FUNCTION"]
            .iter()
            .any(|k| self.peek_keyword(k))
            && match self.tokens.get(self.at + 1).map(|t| &t.token) {
                Some(Token::Word(w)) => !["TO", "FROM"].iter().any(|k| w.eq_ignore_ascii_case(k)),
                Some(Token::Name(_)) => true,
                _ => false,
            };
        if routine {
            let kind = match self.eat("PROCEDURE") {
                true => RoutineKind::Procedure,
                false => {
                    self.expect("FUNCTION")?;
                    RoutineKind::Function
                }
            };
            let first = self.name()?;
            if !self.eat_punct('.') {
                return Ok(Level::Routine(kind, None, first));
            }
            return Ok(Level::Routine(kind, Some(first), self.name()?));
        }
        self.eat("TABLE");
        if self.eat_punct('*') {
            if self.eat_punct('.') {
                self.expect_punct('*')?;
                return Ok(Level::Global);
            }
            return Ok(Level::Database(None));
        }
        let first = self.name()?;
        if !self.eat_punct('.') {
            return Ok(Level::Table(None, first));
        }
        if self.eat_punct('*') {
            return Ok(Level::Database(Some(first)));
        }
        Ok(Level::Table(Some(first), self.name()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(user: &str, host: &str) -> UserRef {
        UserRef::Named(UserName {
            user: user.into(),
            host: host.into(),
        })
    }

    #[test]
    fn parses_account_statements() {
        let cases: Vec<(&str, AccountStatement)> = vec![
            (
                "CREATE USER 'bob'@'10.0.%' IDENTIFIED BY 'pw' REQUIRE SSL ACCOUNT LOCK",
                AccountStatement::CreateUser {
                    or_replace: false,
                    if_not_exists: false,
                    users: vec![UserSpec {
                        user: named("bob", "10.0.%"),
                        auth: Some(AuthOption::Password {
                            plugin: None,
                            password: "pw".into(),
                        }),
                    }],
                    options: AccountOptions {
                        require_ssl: Some(true),
                        locked: Some(true),
                    },
                },
            ),
            (
                "create user if not exists a identified with caching_sha2_password by 'x', \
                 `b`@localhost identified by password '*14E65567ABDB5135D0CFD9A70B3032C179A49EE7'",
                AccountStatement::CreateUser {
                    or_replace: false,
                    if_not_exists: true,
                    users: vec![
                        UserSpec {
                            user: named("a", "%"),
                            auth: Some(AuthOption::Password {
                                plugin: Some(PasswordPlugin::CachingSha2Password),
                                password: "x".into(),
                            }),
                        },
                        UserSpec {
                            user: named("b", "localhost"),
                            auth: Some(AuthOption::Hash {
                                plugin: None,
                                hash: "*14E65567ABDB5135D0CFD9A70B3032C179A49EE7".into(),
                            }),
                        },
                    ],
                    options: AccountOptions::default(),
                },
            ),
            (
                "GRANT SELECT, INSERT, CREATE USER ON db.t TO u@'%' WITH GRANT OPTION",
                AccountStatement::Grant {
                    privileges: PrivilegeList {
                        privileges: Privileges::SELECT
                            | Privileges::INSERT
                            | Privileges::CREATE_USER
                            | Privileges::GRANT,
                        ..PrivilegeList::default()
                    },
                    level: Level::Table(Some("db".into()), "t".into()),
                    users: vec![UserSpec {
                        user: named("u", "%"),
                        auth: None,
                    }],
                    options: AccountOptions::default(),
                },
            ),
            (
                "GRANT SELECT (a, `B`), INSERT (a), UPDATE, REFERENCES (c) ON t TO u",
                AccountStatement::Grant {
                    privileges: PrivilegeList {
                        privileges: Privileges::UPDATE,
                        all: false,
                        columns: vec![
                            ("a".into(), Privileges::SELECT | Privileges::INSERT),
                            ("B".into(), Privileges::SELECT),
                            ("c".into(), Privileges::REFERENCES),
                        ],
                    },
                    level: Level::Table(None, "t".into()),
                    users: vec![UserSpec {
                        user: named("u", "%"),
                        auth: None,
                    }],
                    options: AccountOptions::default(),
                },
            ),
            (
                "revoke all privileges on *.* from u",
                AccountStatement::Revoke {
                    privileges: PrivilegeList {
                        all: true,
                        ..PrivilegeList::default()
                    },
                    level: Level::Global,
                    users: vec![named("u", "%")],
                },
            ),
            (
                "REVOKE ALL PRIVILEGES, GRANT OPTION FROM u@h",
                AccountStatement::RevokeAll {
                    users: vec![named("u", "h")],
                },
            ),
            (
                "SET PASSWORD FOR 'u'@'h' = PASSWORD('x')",
                AccountStatement::SetPassword {
                    user: Some(named("u", "h")),
                    auth: AuthOption::Password {
                        plugin: None,
                        password: "x".into(),
                    },
                },
            ),
            (
                "show grants for current_user()",
                AccountStatement::ShowGrants(Some(UserRef::Current)),
            ),
            (
                "RENAME USER a@b TO c@d",
                AccountStatement::RenameUser(vec![(named("a", "b"), named("c", "d"))]),
            ),
        ];
        for (text, expected) in cases {
            assert!(is_account_statement(text), "{text}");
            assert_eq!(parse(text, 1).expect(text), expected, "{text}");
        }
    }

    #[test]
    fn syntax_errors_point_near_the_token() {
        let e = parse("GRANT SELEC ON *.* TO u", 1).expect_err("bad privilege");
        assert!(
            e.message.contains("near 'SELEC ON *.* TO u'"),
            "{}",
            e.message
        );
        let e = parse("CREATE USER u IDENTIFIED BY", 1).expect_err("no password");
        assert!(e.message.contains("near ''"), "{}", e.message);
        let e = parse("GRANT DELETE (a) ON t TO u", 1).expect_err("no DELETE on columns");
        assert!(e.message.contains("near '(a) ON t TO u'"), "{}", e.message);
        assert!(!is_account_statement("CREATE TABLE user (a int)"));
        assert!(!is_account_statement("SET @password = 1"));
    }
}
