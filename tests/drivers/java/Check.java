// MariaDB Connector/J and MySQL Connector/J against the server at DB_HOST:DB_PORT.
//
// Usage: DB_HOST=127.0.0.1 DB_PORT=3306 java -cp 'jars/*' Check.java mariadb|mysql true|false
//
// The second argument is useServerPrepStmts: true makes every PreparedStatement a
// server-side prepared statement (binary protocol); false makes the driver quote the
// parameters into the text (text protocol). Everything else is the driver's default,
// including TLS: MySQL Connector/J prefers it (sslMode=PREFERRED), MariaDB's does not.
// Every mismatch is printed; the exit code is 1 if there was any.

import java.math.BigDecimal;
import java.sql.BatchUpdateException;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

public class Check {
    static final List<String> failures = new ArrayList<>();

    static void fail(String message) {
        failures.add(message);
        System.err.println("MISMATCH: " + message);
    }

    static void expectEqual(String what, Object got, Object want) {
        boolean same = got instanceof byte[] && want instanceof byte[]
                ? Arrays.equals((byte[]) got, (byte[]) want)
                : Objects.equals(got, want);
        if (!same) {
            fail(what + ": got " + show(got) + ", want " + show(want));
        }
    }

    static String show(Object value) {
        if (value instanceof byte[]) {
            return "bytes" + Arrays.toString((byte[]) value);
        }
        if (value instanceof int[]) {
            return Arrays.toString((int[]) value);
        }
        return value == null ? "null" : value + " (" + value.getClass().getSimpleName() + ")";
    }

    static final String COLUMNS =
            "ti, tu, si, su, mi, mu, i, iu, bi, bu, de, f, d, v, b, vb, dt, dtt, ts, n";
    static final String[] NAMES = COLUMNS.split(", ");
    static final String CREATE_TYPES = "CREATE TABLE types ("
            + " id INT AUTO_INCREMENT PRIMARY KEY,"
            + " ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, su SMALLINT UNSIGNED,"
            + " mi MEDIUMINT, mu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED,"
            + " bi BIGINT, bu BIGINT UNSIGNED, de DECIMAL(30,10), f FLOAT, d DOUBLE,"
            + " v VARCHAR(100), b BLOB, vb VARBINARY(300), dt DATE, dtt DATETIME(6),"
            + " ts TIMESTAMP(3) NULL, n INT NULL)";
    // Whether each numeric column (the first 13) is signed: its UNSIGNED flag.
    static final boolean[] SIGNED = {true, false, true, false, true, false, true, false, true,
        false, true, true, true};

    static byte[] allBytes() {
        byte[] bytes = new byte[256];
        for (int n = 0; n < bytes.length; n++) {
            bytes[n] = (byte) n;
        }
        return bytes;
    }

    static final byte[] AWKWARD_BYTES = {0, '\'', '"', '\\', '\n', '\r', 0x1a, (byte) 0xff, '%',
        '_'};

    // One row as Java values; each is bound and read back with the matching JDBC type.
    record Row(Long ti, Long tu, Long si, Long su, Long mi, Long mu, Long i, Long iu, Long bi,
            BigDecimal bu, BigDecimal de, Float f, Double d, String v, byte[] b, byte[] vb,
            LocalDate dt, LocalDateTime dtt, LocalDateTime ts, Long n) {
        Object[] values() {
            return new Object[] {ti, tu, si, su, mi, mu, i, iu, bi, bu, de, f, d, v, b, vb, dt,
                dtt, ts, n};
        }
    }

    static final Row[] ROWS = {
        new Row(-128L, 0L, -32768L, 0L, -8388608L, 0L, (long) Integer.MIN_VALUE, 0L,
                Long.MIN_VALUE, BigDecimal.ZERO, new BigDecimal("-99999999999999999999.9999999999"),
                -1.5f, -0.1, "héllo wörld 😀 日本語 ñ", allBytes(), AWKWARD_BYTES,
                LocalDate.of(1000, 1, 1), LocalDateTime.of(1000, 1, 1, 0, 0, 0),
                LocalDateTime.of(2001, 2, 3, 4, 5, 6, 789_000_000), null),
        // FLOAT is printed with 6 significant digits in the text protocol.
        new Row(127L, 255L, 32767L, 65535L, 8388607L, 16777215L, (long) Integer.MAX_VALUE,
                4294967295L, Long.MAX_VALUE, new BigDecimal("18446744073709551615"),
                new BigDecimal("99999999999999999999.9999999999"), 65504f, Double.MAX_VALUE, "",
                new byte[0], new byte[0], LocalDate.of(9999, 12, 31),
                LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_000),
                LocalDateTime.of(2038, 1, 19, 3, 14, 7, 999_000_000), 42L),
        new Row(null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null, null, null, null, null, null),
    };

    static void bind(PreparedStatement statement, Row row) throws SQLException {
        Object[] values = row.values();
        for (int column = 0; column < values.length; column++) {
            int index = column + 1;
            Object value = values[column];
            if (value == null) {
                statement.setNull(index, Types.NULL);
            } else if (value instanceof Long l) {
                statement.setLong(index, l);
            } else if (value instanceof BigDecimal decimal) {
                statement.setBigDecimal(index, decimal);
            } else if (value instanceof Float f) {
                statement.setFloat(index, f);
            } else if (value instanceof Double d) {
                statement.setDouble(index, d);
            } else if (value instanceof String s) {
                statement.setString(index, s);
            } else if (value instanceof byte[] bytes) {
                statement.setBytes(index, bytes);
            } else {
                statement.setObject(index, value);
            }
        }
    }

    static Object read(ResultSet rs, int index, Object like) throws SQLException {
        Object value;
        if (like instanceof Long) {
            value = rs.getLong(index);
        } else if (like instanceof BigDecimal) {
            BigDecimal decimal = rs.getBigDecimal(index);
            value = decimal == null ? null : decimal.toPlainString();
        } else if (like instanceof Float) {
            value = rs.getFloat(index);
        } else if (like instanceof Double) {
            value = rs.getDouble(index);
        } else if (like instanceof String) {
            value = rs.getString(index);
        } else if (like instanceof byte[]) {
            value = rs.getBytes(index);
        } else if (like instanceof LocalDate) {
            value = rs.getObject(index, LocalDate.class);
        } else {
            value = rs.getObject(index, LocalDateTime.class);
        }
        return rs.wasNull() ? null : value;
    }

    // MySQL Connector/J sends fractional seconds only to servers from 5.6.4 on, and both
    // MariaDB and manycore announce themselves as "5.5.5-10.11...": it drops them.
    static boolean fractionsDropped;

    static Object expected(Object value) {
        if (value instanceof BigDecimal decimal) {
            return decimal.toPlainString();
        }
        if (value instanceof LocalDateTime time && fractionsDropped) {
            return time.withNano(0);
        }
        return value;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2 || !(args[0].equals("mariadb") || args[0].equals("mysql"))) {
            System.err.println("usage: Check mariadb|mysql true|false");
            System.exit(2);
        }
        String driver = args[0];
        boolean serverPrepared = Boolean.parseBoolean(args[1]);
        fractionsDropped = driver.equals("mysql");
        String database = "drv_java_" + driver + (serverPrepared ? "_binary" : "_text");
        String base = "jdbc:" + driver + "://" + System.getenv("DB_HOST") + ":"
                + System.getenv("DB_PORT") + "/";
        String options = "?user=root&useServerPrepStmts=" + serverPrepared
                + "&connectTimeout=10000&socketTimeout=60000";
        DriverManager.setLoginTimeout(10);

        try (Connection setup = DriverManager.getConnection(base + options)) {
            expectEqual("isValid (ping)", setup.isValid(5), true);
            try (Statement statement = setup.createStatement()) {
                statement.execute("DROP DATABASE IF EXISTS " + database);
                expectEqual("CREATE DATABASE count",
                        statement.executeUpdate("CREATE DATABASE " + database), 1);
                try (ResultSet rs = statement.executeQuery("SHOW STATUS LIKE 'Ssl_version'")) {
                    rs.next();
                    System.out.println(driver + ": Ssl_version=" + rs.getString(2));
                }
            }
        }
        try (Connection conn = DriverManager.getConnection(base + database + options)) {
            typesRoundTrip(conn);
            affectedRowsAndGeneratedKeys(conn);
            transactions(conn);
            errorCodes(conn);
            preparedReuseAndBatch(conn);
            storedRoutines(conn);
            expectEqual("isValid after everything", conn.isValid(5), true);
        }
        try (Connection multi = DriverManager.getConnection(
                base + database + options + "&allowMultiQueries=true")) {
            multiStatements(multi);
        }
        String mode = driver + " useServerPrepStmts=" + serverPrepared;
        if (!failures.isEmpty()) {
            System.err.println(mode + ": " + failures.size() + " mismatches");
            System.exit(1);
        }
        System.out.println(mode + ": all checks passed");
    }

    static void typesRoundTrip(Connection conn) throws SQLException {
        try (Statement statement = conn.createStatement()) {
            statement.execute(CREATE_TYPES);
        }
        String insert = "INSERT INTO types (" + COLUMNS + ") VALUES (?" + ", ?".repeat(19) + ")";
        try (PreparedStatement statement =
                conn.prepareStatement(insert, Statement.RETURN_GENERATED_KEYS)) {
            for (int index = 0; index < ROWS.length; index++) {
                bind(statement, ROWS[index]);
                expectEqual("insert row " + (index + 1), statement.executeUpdate(), 1);
                try (ResultSet keys = statement.getGeneratedKeys()) {
                    expectEqual("generated key of row " + (index + 1),
                            keys.next() ? keys.getLong(1) : null, (long) index + 1);
                }
            }
        }
        String select = "SELECT " + COLUMNS + " FROM types";
        try (Statement statement = conn.createStatement();
                ResultSet rs = statement.executeQuery(select + " ORDER BY id")) {
            compareRows("text protocol", rs);
        }
        try (PreparedStatement statement =
                conn.prepareStatement(select + " WHERE id > ? ORDER BY id")) {
            statement.setInt(1, 0);
            try (ResultSet rs = statement.executeQuery()) {
                compareRows("prepared", rs);
            }
        }
    }

    static void compareRows(String what, ResultSet rs) throws SQLException {
        ResultSetMetaData meta = rs.getMetaData();
        for (int column = 0; column < NAMES.length; column++) {
            if (column < SIGNED.length) {
                expectEqual(what + ": " + NAMES[column] + " signed",
                        meta.isSigned(column + 1), SIGNED[column]);
            }
            expectEqual(what + ": " + NAMES[column] + " label", meta.getColumnLabel(column + 1),
                    NAMES[column]);
        }
        int index = 0;
        while (rs.next()) {
            if (index >= ROWS.length) {
                fail(what + ": more rows than inserted");
                return;
            }
            Object[] want = ROWS[index].values();
            // Each column is read as the second row's value (none NULL) says.
            Object[] like = ROWS[1].values();
            for (int column = 0; column < NAMES.length; column++) {
                expectEqual(what + ": row " + (index + 1) + " " + NAMES[column],
                        read(rs, column + 1, like[column]), expected(want[column]));
            }
            index++;
        }
        expectEqual(what + ": row count", index, ROWS.length);
    }

    static void affectedRowsAndGeneratedKeys(Connection conn) throws SQLException {
        try (Statement statement = conn.createStatement()) {
            statement.execute("CREATE TABLE seq (id BIGINT AUTO_INCREMENT PRIMARY KEY,"
                    + " v VARCHAR(20), k INT)");
        }
        try (PreparedStatement insert = conn.prepareStatement(
                "INSERT INTO seq (v, k) VALUES (?, 1), (?, 1), (?, 2)",
                Statement.RETURN_GENERATED_KEYS)) {
            insert.setString(1, "a");
            insert.setString(2, "b");
            insert.setString(3, "c");
            expectEqual("multi-row insert count", insert.executeUpdate(), 3);
            try (ResultSet keys = insert.getGeneratedKeys()) {
                expectEqual("multi-row insert: first generated key",
                        keys.next() ? keys.getLong(1) : null, 1L);
            }
        }
        try (Statement statement = conn.createStatement()) {
            statement.executeUpdate("INSERT INTO seq (id, v, k) VALUES (100, 'd', 3)",
                    Statement.RETURN_GENERATED_KEYS);
            try (ResultSet keys = statement.getGeneratedKeys()) {
                expectEqual("explicit id", keys.next() ? keys.getLong(1) : null, 100L);
            }
            statement.executeUpdate("INSERT INTO seq (v, k) VALUES ('e', 3)",
                    Statement.RETURN_GENERATED_KEYS);
            try (ResultSet keys = statement.getGeneratedKeys()) {
                expectEqual("id after an explicit id", keys.next() ? keys.getLong(1) : null,
                        101L);
            }
        }
        try (PreparedStatement update = conn.prepareStatement("UPDATE seq SET k = ? WHERE k = ?")) {
            update.setInt(1, 5);
            update.setInt(2, 1);
            expectEqual("update of two rows", update.executeUpdate(), 2);
            // Both drivers set CLIENT_FOUND_ROWS by default (useAffectedRows=false): matched
            // rows count, changed or not.
            update.setInt(2, 5);
            expectEqual("update that changes nothing", update.executeUpdate(), 2);
        }
        try (PreparedStatement delete = conn.prepareStatement("DELETE FROM seq WHERE k = ?")) {
            delete.setInt(1, 3);
            expectEqual("delete", delete.executeUpdate(), 2);
        }
    }

    static long count(Connection conn, String table) throws SQLException {
        try (Statement statement = conn.createStatement();
                ResultSet rs = statement.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static void transactions(Connection conn) throws SQLException {
        try (Statement statement = conn.createStatement()) {
            statement.execute("CREATE TABLE accounts (id INT PRIMARY KEY, balance BIGINT NOT NULL)");
        }
        conn.setAutoCommit(false);
        try (PreparedStatement insert = conn.prepareStatement("INSERT INTO accounts VALUES (?, ?)")) {
            insert.setInt(1, 1);
            insert.setLong(2, 100);
            insert.executeUpdate();
            expectEqual("count inside the transaction", count(conn, "accounts"), 1L);
            conn.rollback();
            expectEqual("count after rollback", count(conn, "accounts"), 0L);
            insert.executeUpdate();
            insert.setInt(1, 2);
            insert.setLong(2, 50);
            insert.executeUpdate();
        }
        try (PreparedStatement update =
                conn.prepareStatement("UPDATE accounts SET balance = balance - ? WHERE id = ?")) {
            update.setLong(1, 30);
            update.setInt(2, 1);
            update.executeUpdate();
        }
        conn.commit();
        conn.setAutoCommit(true);
        try (PreparedStatement select =
                conn.prepareStatement("SELECT balance FROM accounts WHERE id = ?")) {
            select.setInt(1, 1);
            try (ResultSet rs = select.executeQuery()) {
                expectEqual("balance after commit", rs.next() ? rs.getLong(1) : null, 70L);
            }
        }
        expectEqual("count after commit", count(conn, "accounts"), 2L);
    }

    interface Action {
        void run() throws SQLException;
    }

    static void expectError(String what, Action action, int code, String sqlState) {
        try {
            action.run();
            fail(what + ": succeeded, want error " + code + " (" + sqlState + ")");
        } catch (SQLException e) {
            expectEqual(what + ": error code (" + e.getMessage() + ")", e.getErrorCode(), code);
            expectEqual(what + ": SQLSTATE", e.getSQLState(), sqlState);
        }
    }

    static void errorCodes(Connection conn) throws SQLException {
        expectError("duplicate key", () -> {
            try (PreparedStatement insert =
                    conn.prepareStatement("INSERT INTO accounts VALUES (?, ?)")) {
                insert.setInt(1, 1);
                insert.setLong(2, 0);
                insert.executeUpdate();
            }
        }, 1062, "23000");
        expectError("syntax error, prepared", () -> {
            try (PreparedStatement select = conn.prepareStatement("SELEC ?")) {
                select.setInt(1, 1);
                select.execute();
            }
        }, 1064, "42000");
        expectError("syntax error, statement", () -> {
            try (Statement statement = conn.createStatement()) {
                statement.execute("SELEC 1");
            }
        }, 1064, "42000");
        expectError("missing table", () -> {
            try (Statement statement = conn.createStatement()) {
                statement.executeQuery("SELECT * FROM no_such_table");
            }
        }, 1146, "42S02");
        expectEqual("isValid after errors", conn.isValid(5), true);
        expectEqual("count after errors", count(conn, "accounts"), 2L);
    }

    static void preparedReuseAndBatch(Connection conn) throws SQLException {
        final int executions = 300;
        try (PreparedStatement insert = conn.prepareStatement("INSERT INTO seq (v, k) VALUES (?, ?)")) {
            for (int n = 0; n < executions; n++) {
                insert.setString(1, "r" + n);
                insert.setInt(2, n);
                expectEqual("reused insert " + n, insert.executeUpdate(), 1);
            }
            for (int n = 0; n < 50; n++) {
                insert.setString(1, "batch" + n);
                insert.setInt(2, 1000 + n);
                insert.addBatch();
            }
            int[] counts = insert.executeBatch();
            expectEqual("batch size", counts.length, 50);
            for (int n = 0; n < counts.length; n++) {
                // 1, or SUCCESS_NO_INFO (-2) where the driver sent the batch in one go.
                if (counts[n] != 1 && counts[n] != Statement.SUCCESS_NO_INFO) {
                    fail("batch count " + n + ": " + counts[n]);
                }
            }
        } catch (BatchUpdateException e) {
            fail("batch: " + e);
        }
        expectEqual("rows after the batch", count(conn, "seq"), 3L + executions + 50);
        try (PreparedStatement select =
                conn.prepareStatement("SELECT v, k FROM seq WHERE k = ? AND v LIKE ?")) {
            for (int n = 0; n < executions; n++) {
                select.setInt(1, n);
                select.setString(2, "r%");
                try (ResultSet rs = select.executeQuery()) {
                    if (!rs.next() || !rs.getString(1).equals("r" + n) || rs.getInt(2) != n
                            || rs.next()) {
                        fail("reused select " + n);
                    }
                }
            }
        }
    }

    static void multiStatements(Connection conn) throws SQLException {
        try (Statement statement = conn.createStatement()) {
            boolean isResultSet = statement.execute(
                    "SELECT 1 AS one; SELECT 'two' AS s, 3 AS n; UPDATE accounts SET balance = 2");
            List<String> results = new ArrayList<>();
            while (true) {
                if (isResultSet) {
                    try (ResultSet rs = statement.getResultSet()) {
                        int columns = rs.getMetaData().getColumnCount();
                        while (rs.next()) {
                            for (int column = 1; column <= columns; column++) {
                                results.add(rs.getString(column));
                            }
                        }
                    }
                } else {
                    int updated = statement.getUpdateCount();
                    if (updated == -1) {
                        break;
                    }
                    results.add("updated " + updated);
                }
                isResultSet = statement.getMoreResults();
            }
            expectEqual("multi-statement results", results,
                    List.of("1", "two", "3", "updated 2"));
        }
    }

    // CallableStatement: MariaDB's driver prepares the CALL on the server and reads the OUT
    // parameters from the result set flagged SERVER_PS_OUT_PARAMS; MySQL's passes them
    // through user variables it reads back with a SELECT, after reading the parameters'
    // modes from the server's metadata.
    static void storedRoutines(Connection conn) throws SQLException {
        try (Statement statement = conn.createStatement()) {
            statement.execute("CREATE PROCEDURE scale(IN factor INT, OUT doubled BIGINT,"
                    + " INOUT label VARCHAR(20))"
                    + " BEGIN SET doubled = factor * 2; SET label = CONCAT(label, '!');"
                    + " SELECT factor AS f, label AS l; END");
            statement.execute("CREATE FUNCTION plus_one(x INT) RETURNS INT DETERMINISTIC"
                    + " RETURN x + 1");
        }
        try (CallableStatement call = conn.prepareCall("{call scale(?, ?, ?)}")) {
            for (int factor : new int[] {21, -4}) {
                call.setInt(1, factor);
                call.registerOutParameter(2, Types.BIGINT);
                call.setString(3, "n" + factor);
                call.registerOutParameter(3, Types.VARCHAR);
                expectEqual("CALL scale has a result set", call.execute(), true);
                try (ResultSet rs = call.getResultSet()) {
                    expectEqual("CALL scale row", rs.next(), true);
                    expectEqual("CALL scale f", rs.getInt(1), factor);
                    expectEqual("CALL scale l", rs.getString(2), "n" + factor + "!");
                    expectEqual("CALL scale one row", rs.next(), false);
                }
                expectEqual("CALL scale OUT doubled", call.getLong(2), factor * 2L);
                expectEqual("CALL scale INOUT label", call.getString(3), "n" + factor + "!");
            }
        }
        try (CallableStatement call = conn.prepareCall("{? = call plus_one(?)}")) {
            call.registerOutParameter(1, Types.INTEGER);
            call.setInt(2, 41);
            call.execute();
            expectEqual("function plus_one", call.getInt(1), 42);
        }
        expectError("CALL of no such procedure", () -> {
            try (CallableStatement call = conn.prepareCall("{call no_such_procedure(?)}")) {
                call.setInt(1, 1);
                call.execute();
            }
        }, 1305, "42000");
    }
}
