// go-sql-driver/mysql through database/sql against the server at DB_HOST:DB_PORT.
//
// Usage: DB_HOST=127.0.0.1 DB_PORT=3306 go run . binary|text
//
// binary: interpolateParams=false (the driver's default), so every query with
// arguments is a server-side prepared statement and its rows use the binary protocol.
// text: interpolateParams=true, so the driver quotes arguments into the SQL text and
// every result set uses the text protocol.
//
// Every mismatch is printed; the program exits 1 if there was any.
package main

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"time"

	"github.com/go-sql-driver/mysql"
)

var failures []string

func fail(format string, args ...any) {
	message := fmt.Sprintf(format, args...)
	failures = append(failures, message)
	fmt.Fprintln(os.Stderr, "MISMATCH:", message)
}

// must stops the program: an unexpected error leaves nothing sensible to check.
func must(err error, what string) {
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAILED: %s: %v\n", what, err)
		os.Exit(1)
	}
}

func expectEqual(what string, got, want any) {
	if !reflect.DeepEqual(got, want) {
		fail("%s: got %#v, want %#v", what, got, want)
	}
}

// typesRow is one row of the types table; NULL is the zero sql.Null.
type typesRow struct {
	ti, si, mi, i, bi  sql.Null[int64]
	tu, su, mu, iu, bu sql.Null[uint64]
	de                 sql.Null[string]
	f                  sql.Null[float32]
	d                  sql.Null[float64]
	v                  sql.Null[string]
	b, vb              []byte
	dt, dtt, ts        sql.Null[time.Time]
	n                  sql.Null[int64]
}

func (r *typesRow) scanTargets() []any {
	return []any{&r.ti, &r.tu, &r.si, &r.su, &r.mi, &r.mu, &r.i, &r.iu, &r.bi, &r.bu,
		&r.de, &r.f, &r.d, &r.v, &r.b, &r.vb, &r.dt, &r.dtt, &r.ts, &r.n}
}

// params are the row's values as query arguments: the plain value, or nil for NULL
// (sql.Null's own Valuer would refuse uint64 values above MaxInt64).
func (r *typesRow) params() []any {
	var out []any
	for _, target := range r.scanTargets() {
		value := reflect.ValueOf(target).Elem()
		switch {
		case value.Kind() == reflect.Slice && value.IsNil():
			out = append(out, nil)
		case value.Kind() == reflect.Slice:
			out = append(out, value.Interface())
		case value.FieldByName("Valid").Bool():
			out = append(out, value.FieldByName("V").Interface())
		default:
			out = append(out, nil)
		}
	}
	return out
}

func valid[T any](v T) sql.Null[T] { return sql.Null[T]{V: v, Valid: true} }

func utc(layout string) sql.Null[time.Time] {
	t, err := time.ParseInLocation("2006-01-02 15:04:05.999999", layout, time.UTC)
	must(err, "parse "+layout)
	return valid(t)
}

const columns = "ti, tu, si, su, mi, mu, i, iu, bi, bu, de, f, d, v, b, vb, dt, dtt, ts, n"

const createTypes = `CREATE TABLE types (
	id INT AUTO_INCREMENT PRIMARY KEY,
	ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, su SMALLINT UNSIGNED,
	mi MEDIUMINT, mu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED,
	bi BIGINT, bu BIGINT UNSIGNED, de DECIMAL(30,10), f FLOAT, d DOUBLE,
	v VARCHAR(100), b BLOB, vb VARBINARY(300), dt DATE, dtt DATETIME(6),
	ts TIMESTAMP(3) NULL, n INT NULL)`

// What DatabaseTypeName reports for each column, from the protocol's type and flags.
var columnTypeNames = []string{"TINYINT", "UNSIGNED TINYINT", "SMALLINT", "UNSIGNED SMALLINT",
	"MEDIUMINT", "UNSIGNED MEDIUMINT", "INT", "UNSIGNED INT", "BIGINT", "UNSIGNED BIGINT",
	"DECIMAL", "FLOAT", "DOUBLE", "VARCHAR", "BLOB", "VARBINARY", "DATE", "DATETIME",
	"TIMESTAMP", "INT"}

func allBytes() []byte {
	out := make([]byte, 256)
	for i := range out {
		out[i] = byte(i)
	}
	return out
}

func expectedRows() []typesRow {
	return []typesRow{
		{
			ti: valid[int64](math.MinInt8), tu: valid[uint64](0),
			si: valid[int64](math.MinInt16), su: valid[uint64](0),
			mi: valid[int64](-8388608), mu: valid[uint64](0),
			i: valid[int64](math.MinInt32), iu: valid[uint64](0),
			bi: valid[int64](math.MinInt64), bu: valid[uint64](0),
			de: valid("-99999999999999999999.9999999999"),
			f:  valid[float32](-1.5), d: valid(-0.1),
			v: valid("héllo wörld 😀 日本語 ñ"),
			b: allBytes(), vb: []byte("\x00'\"\\\n\r\x1a\xff%_"),
			dt: utc("1000-01-01 00:00:00"), dtt: utc("1000-01-01 00:00:00"),
			ts: utc("2001-02-03 04:05:06.789"), n: sql.Null[int64]{},
		},
		{
			ti: valid[int64](math.MaxInt8), tu: valid[uint64](math.MaxUint8),
			si: valid[int64](math.MaxInt16), su: valid[uint64](math.MaxUint16),
			mi: valid[int64](8388607), mu: valid[uint64](16777215),
			i: valid[int64](math.MaxInt32), iu: valid[uint64](math.MaxUint32),
			bi: valid[int64](math.MaxInt64), bu: valid[uint64](math.MaxUint64),
			de: valid("99999999999999999999.9999999999"),
			// FLOAT is printed with 6 significant digits in the text protocol.
			f: valid[float32](65504), d: valid(math.MaxFloat64),
			v: valid(""), b: []byte{}, vb: []byte{},
			dt: utc("9999-12-31 00:00:00"), dtt: utc("9999-12-31 23:59:59.999999"),
			ts: utc("2038-01-19 03:14:07.999"), n: valid[int64](42),
		},
		{}, // every column NULL
	}
}

func main() {
	if len(os.Args) != 2 || (os.Args[1] != "binary" && os.Args[1] != "text") {
		fmt.Fprintln(os.Stderr, "usage: main binary|text (DB_HOST, DB_PORT in the environment)")
		os.Exit(2)
	}
	mode := os.Args[1]
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	address := os.Getenv("DB_HOST") + ":" + os.Getenv("DB_PORT")
	database := "drv_go_" + mode

	// The driver's defaults (no TLS), plus how this mode binds and how times decode.
	config := mysql.NewConfig()
	config.User = "root"
	config.Net = "tcp"
	config.Addr = address
	config.ParseTime = true
	config.Loc = time.UTC
	config.InterpolateParams = mode == "text"
	config.Timeout = 10 * time.Second
	config.ReadTimeout = 60 * time.Second
	config.WriteTimeout = 60 * time.Second

	setup, err := sql.Open("mysql", config.FormatDSN())
	must(err, "open")
	must(setup.PingContext(ctx), "ping")
	_, err = setup.ExecContext(ctx, "DROP DATABASE IF EXISTS "+database)
	must(err, "drop database")
	result, err := setup.ExecContext(ctx, "CREATE DATABASE "+database)
	must(err, "create database")
	expectAffected("CREATE DATABASE", result, 1)
	setup.Close()

	config.DBName = database
	db, err := sql.Open("mysql", config.FormatDSN())
	must(err, "open "+database)
	defer db.Close()
	db.SetMaxOpenConns(4)

	typesRoundTrip(ctx, db, mode)
	affectedRowsAndInsertIDs(ctx, db)
	transactions(ctx, db)
	errorCodes(ctx, db)
	preparedReuse(ctx, db)
	multiStatements(ctx, config)
	tlsPreferred(ctx, config)

	if len(failures) > 0 {
		fmt.Fprintf(os.Stderr, "go-sql-driver/mysql %s: %d mismatches\n", mode, len(failures))
		os.Exit(1)
	}
	fmt.Printf("go-sql-driver/mysql %s: all checks passed\n", mode)
}

func expectAffected(what string, result sql.Result, want int64) {
	got, err := result.RowsAffected()
	must(err, what+": RowsAffected")
	expectEqual(what+": affected rows", got, want)
}

func expectInsertID(what string, result sql.Result, want int64) {
	got, err := result.LastInsertId()
	must(err, what+": LastInsertId")
	expectEqual(what+": last insert id", got, want)
}

func typesRoundTrip(ctx context.Context, db *sql.DB, mode string) {
	_, err := db.ExecContext(ctx, createTypes)
	must(err, "create table types")
	insert := "INSERT INTO types (" + columns + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
	expected := expectedRows()
	for index, row := range expected {
		result, err := db.ExecContext(ctx, insert, row.params()...)
		must(err, fmt.Sprintf("insert row %d", index+1))
		expectAffected("insert", result, 1)
		expectInsertID("insert", result, int64(index+1))
	}

	// Without arguments database/sql sends text queries; with one it prepares in
	// binary mode and interpolates in text mode.
	textRows, err := db.QueryContext(ctx, "SELECT "+columns+" FROM types ORDER BY id")
	must(err, "select (text protocol)")
	checkTypeNames("text protocol", textRows)
	compareRows(mode+"/text protocol", textRows, expected)

	argRows, err := db.QueryContext(ctx, "SELECT "+columns+" FROM types WHERE id > ? ORDER BY id", 0)
	must(err, "select with an argument")
	checkTypeNames(mode+" with an argument", argRows)
	compareRows(mode+"/with an argument", argRows, expected)

	// Binding a value and reading it straight back checks the parameter's own type.
	for index, row := range expected {
		params := row.params()
		for column, param := range params {
			var echoed any
			err := db.QueryRowContext(ctx, "SELECT ?", param).Scan(&echoed)
			must(err, fmt.Sprintf("SELECT ? with row %d column %d", index+1, column))
			if !sameParam(echoed, param) {
				fail("SELECT ? row %d column %d: got %#v (%T), want %#v (%T)",
					index+1, column, echoed, echoed, param, param)
			}
		}
	}
}

// sameParam compares a bound value with what SELECT ? returned: numbers may come back
// as text in the text protocol, and strings as []byte.
func sameParam(got, want any) bool {
	if want == nil {
		return got == nil
	}
	text := func(v any) string {
		switch v := v.(type) {
		case []byte:
			return string(v)
		case time.Time:
			return v.UTC().Format("2006-01-02 15:04:05.999999")
		case float32:
			return fmt.Sprint(float64(v))
		default:
			return fmt.Sprint(v)
		}
	}
	if w, ok := want.(time.Time); ok {
		if g, ok := got.(time.Time); ok {
			return g.Equal(w)
		}
		// The column of a DATETIME parameter is a string: the driver sends a DATETIME
		// without its zero time or fraction, and the server echoes it.
		for _, layout := range []string{"2006-01-02", "2006-01-02 15:04:05.999999"} {
			if g, err := time.ParseInLocation(layout, text(got), time.UTC); err == nil {
				return g.Equal(w)
			}
		}
		return false
	}
	if w, ok := want.(float64); ok {
		if g, ok := got.(float64); ok {
			return g == w
		}
		var parsed float64
		_, err := fmt.Sscan(text(got), &parsed)
		return err == nil && parsed == w
	}
	return text(got) == text(want)
}

func checkTypeNames(what string, rows *sql.Rows) {
	types, err := rows.ColumnTypes()
	must(err, what+": column types")
	var names []string
	for _, t := range types {
		names = append(names, t.DatabaseTypeName())
	}
	expectEqual(what+": column type names", names, columnTypeNames)
}

func compareRows(what string, rows *sql.Rows, expected []typesRow) {
	defer rows.Close()
	var got []typesRow
	for rows.Next() {
		var row typesRow
		must(rows.Scan(row.scanTargets()...), what+": scan")
		got = append(got, row)
	}
	must(rows.Err(), what+": rows")
	if len(got) != len(expected) {
		fail("%s: %d rows, want %d", what, len(got), len(expected))
		return
	}
	names := []string{"ti", "tu", "si", "su", "mi", "mu", "i", "iu", "bi", "bu",
		"de", "f", "d", "v", "b", "vb", "dt", "dtt", "ts", "n"}
	for index := range got {
		gotTargets := got[index].scanTargets()
		wantTargets := expected[index].scanTargets()
		for column, name := range names {
			g := reflect.ValueOf(gotTargets[column]).Elem().Interface()
			w := reflect.ValueOf(wantTargets[column]).Elem().Interface()
			if gb, ok := g.([]byte); ok {
				// A NULL blob scans as nil, an empty one as a non-nil empty slice.
				wb := w.([]byte)
				if (gb == nil) != (wb == nil) || !bytes.Equal(gb, wb) {
					fail("%s: row %d %s: got %q, want %q", what, index+1, name, gb, wb)
				}
				continue
			}
			expectEqual(fmt.Sprintf("%s: row %d %s", what, index+1, name), g, w)
		}
	}
}

func affectedRowsAndInsertIDs(ctx context.Context, db *sql.DB) {
	_, err := db.ExecContext(ctx, "CREATE TABLE seq (id BIGINT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(20), k INT)")
	must(err, "create table seq")
	result, err := db.ExecContext(ctx, "INSERT INTO seq (v, k) VALUES (?, 1), (?, 1), (?, 2)", "a", "b", "c")
	must(err, "multi-row insert")
	expectAffected("multi-row insert", result, 3)
	expectInsertID("multi-row insert (the first generated id)", result, 1)
	result, err = db.ExecContext(ctx, "INSERT INTO seq (id, v, k) VALUES (100, ?, 3)", "d")
	must(err, "insert with an explicit id")
	expectInsertID("explicit id", result, 100)
	result, err = db.ExecContext(ctx, "INSERT INTO seq (v, k) VALUES (?, 3)", "e")
	must(err, "insert after an explicit id")
	expectInsertID("after an explicit id", result, 101)

	result, err = db.ExecContext(ctx, "UPDATE seq SET k = ? WHERE k = ?", 5, 1)
	must(err, "update")
	expectAffected("update of two rows", result, 2)
	// Without CLIENT_FOUND_ROWS (the driver's default) unchanged rows do not count.
	result, err = db.ExecContext(ctx, "UPDATE seq SET k = ? WHERE k = ?", 5, 5)
	must(err, "update to the same value")
	expectAffected("update that changes nothing", result, 0)
	result, err = db.ExecContext(ctx, "DELETE FROM seq WHERE k = ?", 3)
	must(err, "delete")
	expectAffected("delete", result, 2)
}

func count(ctx context.Context, db interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, table string) int64 {
	var n int64
	must(db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+table).Scan(&n), "count "+table)
	return n
}

func transactions(ctx context.Context, db *sql.DB) {
	_, err := db.ExecContext(ctx, "CREATE TABLE accounts (id INT PRIMARY KEY, balance BIGINT NOT NULL)")
	must(err, "create table accounts")
	tx, err := db.BeginTx(ctx, nil)
	must(err, "begin")
	_, err = tx.ExecContext(ctx, "INSERT INTO accounts VALUES (?, ?)", 1, 100)
	must(err, "insert in a transaction")
	expectEqual("count inside the transaction", count(ctx, tx, "accounts"), int64(1))
	must(tx.Rollback(), "rollback")
	expectEqual("count after rollback", count(ctx, db, "accounts"), int64(0))

	tx, err = db.BeginTx(ctx, nil)
	must(err, "begin")
	_, err = tx.ExecContext(ctx, "INSERT INTO accounts VALUES (?, ?), (?, ?)", 1, 100, 2, 50)
	must(err, "insert in a transaction")
	_, err = tx.ExecContext(ctx, "UPDATE accounts SET balance = balance - ? WHERE id = ?", 30, 1)
	must(err, "update in a transaction")
	must(tx.Commit(), "commit")
	var balance int64
	must(db.QueryRowContext(ctx, "SELECT balance FROM accounts WHERE id = ?", 1).Scan(&balance), "balance")
	expectEqual("balance after commit", balance, int64(70))
	expectEqual("count after commit", count(ctx, db, "accounts"), int64(2))
}

func expectError(what string, err error, number uint16, sqlState string) {
	var mysqlErr *mysql.MySQLError
	if !errors.As(err, &mysqlErr) {
		fail("%s: got %v, want error %d (%s)", what, err, number, sqlState)
		return
	}
	expectEqual(what+": error code", mysqlErr.Number, number)
	expectEqual(what+": SQLSTATE", string(mysqlErr.SQLState[:]), sqlState)
}

func errorCodes(ctx context.Context, db *sql.DB) {
	_, err := db.ExecContext(ctx, "INSERT INTO accounts VALUES (?, ?)", 1, 0)
	expectError("duplicate key with a parameter", err, 1062, "23000")
	_, err = db.ExecContext(ctx, "INSERT INTO accounts VALUES (2, 0)")
	expectError("duplicate key as text", err, 1062, "23000")
	_, err = db.ExecContext(ctx, "SELEC 1")
	expectError("syntax error as text", err, 1064, "42000")
	_, err = db.ExecContext(ctx, "SELEC ?", 1)
	expectError("syntax error with a parameter", err, 1064, "42000")
	_, err = db.ExecContext(ctx, "SELECT * FROM no_such_table")
	expectError("missing table", err, 1146, "42S02")
	// The connection is still usable after errors.
	must(db.PingContext(ctx), "ping after errors")
}

func preparedReuse(ctx context.Context, db *sql.DB) {
	conn, err := db.Conn(ctx)
	must(err, "conn")
	defer conn.Close()
	insert, err := conn.PrepareContext(ctx, "INSERT INTO seq (v, k) VALUES (?, ?)")
	must(err, "prepare insert")
	const executions = 300
	for n := 0; n < executions; n++ {
		result, err := insert.ExecContext(ctx, fmt.Sprintf("r%d", n), n)
		must(err, "reused insert")
		expectAffected("reused insert", result, 1)
	}
	must(insert.Close(), "close insert")
	selectByK, err := conn.PrepareContext(ctx, "SELECT v, k FROM seq WHERE k = ? AND v LIKE ?")
	must(err, "prepare select")
	for n := 0; n < executions; n++ {
		var v string
		var k int64
		err := selectByK.QueryRowContext(ctx, n, "r%").Scan(&v, &k)
		must(err, fmt.Sprintf("reused select %d", n))
		if v != fmt.Sprintf("r%d", n) || k != int64(n) {
			fail("reused select %d: got (%q, %d)", n, v, k)
		}
	}
	must(selectByK.Close(), "close select")
	must(conn.PingContext(ctx), "ping")
}

func multiStatements(ctx context.Context, config *mysql.Config) {
	multi := config.Clone()
	multi.MultiStatements = true
	db, err := sql.Open("mysql", multi.FormatDSN())
	must(err, "open with multiStatements")
	defer db.Close()
	rows, err := db.QueryContext(ctx, "SELECT 1 AS one; SELECT 'two' AS s, 3 AS n")
	must(err, "multi-statement query")
	var sets [][]string
	for {
		columns, err := rows.Columns()
		must(err, "columns")
		var set []string
		for rows.Next() {
			values := make([]sql.RawBytes, len(columns))
			targets := make([]any, len(values))
			for i := range values {
				targets[i] = &values[i]
			}
			must(rows.Scan(targets...), "scan multi-statement row")
			for _, v := range values {
				set = append(set, string(v))
			}
		}
		sets = append(sets, set)
		if !rows.NextResultSet() {
			break
		}
	}
	must(rows.Err(), "multi-statement rows")
	rows.Close()
	expectEqual("multi-statement result sets", sets, [][]string{{"1"}, {"two", "3"}})

	conn, err := db.Conn(ctx)
	must(err, "conn")
	defer conn.Close()
	must(conn.Raw(func(raw any) error {
		result, err := raw.(driver.ExecerContext).ExecContext(ctx,
			"UPDATE accounts SET balance = 1 WHERE id = 1; INSERT INTO seq (v) VALUES ('m'); "+
				"UPDATE accounts SET balance = 2", nil)
		if err != nil {
			return err
		}
		all := result.(mysql.Result)
		expectEqual("multi-statement affected rows", all.AllRowsAffected(), []int64{1, 1, 2})
		lastIDs := all.AllLastInsertIds()
		if len(lastIDs) != 3 || lastIDs[1] == 0 {
			fail("multi-statement insert ids: %v", lastIDs)
		}
		return nil
	}), "multi-statement exec")
}

// tlsPreferred connects with tls=preferred: TLS when the server offers it (manycore
// always does), plain TCP otherwise.
func tlsPreferred(ctx context.Context, config *mysql.Config) {
	preferred := config.Clone()
	preferred.TLSConfig = "preferred"
	db, err := sql.Open("mysql", preferred.FormatDSN())
	must(err, "open with tls=preferred")
	defer db.Close()
	must(db.PingContext(ctx), "ping with tls=preferred")
	var name, version string
	must(db.QueryRowContext(ctx, "SHOW STATUS LIKE 'Ssl_version'").Scan(&name, &version), "Ssl_version")
	fmt.Printf("tls=preferred: Ssl_version=%q\n", version)
}
