# PyMySQL, mysqlclient (MySQLdb) and SQLAlchemy's ORM against the server at
# DB_HOST:DB_PORT, as user root without a password.
#
# Usage: DB_HOST=127.0.0.1 DB_PORT=3306 python3 check.py pymysql|mysqldb|sqlalchemy|django
#
# The two DB-API drivers get the same checks (both speak the text protocol: Python's
# drivers escape parameters into the query text): types round-tripping exactly, affected
# rows and insert ids, transactions, error codes, multi-statements, a server-side
# (unbuffered) cursor and ping. `sqlalchemy` runs an ORM session with a one-to-many
# relationship and ON DELETE CASCADE through both drivers. `django` applies the
# migrations of Django's auth and contenttypes apps (CREATE TABLE with foreign keys,
# ALTER TABLE MODIFY/DROP COLUMN, INSERT ... RETURNING on MariaDB) through mysqlclient and
# uses the ORM on the result. Every mismatch is printed; the exit code is 1 if there was
# any.
import datetime
import decimal
import os
import sys

failures = []


def expect_equal(what, got, want):
    if got != want:
        failures.append(what)
        print(f"MISMATCH: {what}: got {got!r}, want {want!r}", file=sys.stderr)


def connect_options():
    return dict(host=os.environ["DB_HOST"], port=int(os.environ["DB_PORT"]), user="root")


def connect(driver, **extra):
    options = dict(connect_options(), charset="utf8mb4", autocommit=True, **extra)
    if driver == "pymysql":
        import pymysql

        return pymysql.connect(**options)
    import MySQLdb

    return MySQLdb.connect(**options)


def error_code(error):
    return error.args[0]


def expect_error(what, cursor, sql, code):
    try:
        cursor.execute(sql)
    except Exception as e:  # each driver has its own exception classes
        expect_equal(f"{what}: error code", error_code(e), code)
        return
    expect_equal(f"{what}: an error", "no error", code)


def dbapi_checks(driver):
    database = f"drivercheck_{driver}"
    setup = connect(driver)
    with setup.cursor() as c:
        c.execute(f"DROP DATABASE IF EXISTS {database}")
        c.execute(f"CREATE DATABASE {database}")
    setup.close()

    conn = connect(driver, database=database)
    c = conn.cursor()
    c.execute(
        "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, i BIGINT, u BIGINT UNSIGNED,"
        " d DECIMAL(20,6), f DOUBLE, s VARCHAR(100), b VARBINARY(100), dt DATETIME(6),"
        " day DATE, tm TIME, n INT NULL)"
    )
    row = (
        -9223372036854775808,
        18446744073709551615,
        decimal.Decimal("-12345678901234.123456"),
        1.5e300,
        "héllo ✓ 😀 'quoted' \\ backslash",
        bytes(range(256))[:100],
        datetime.datetime(2024, 2, 29, 23, 59, 58, 123456),
        datetime.date(1999, 12, 31),
        datetime.timedelta(hours=838, minutes=59, seconds=59),
        None,
    )
    c.execute("INSERT INTO t (i, u, d, f, s, b, dt, day, tm, n) VALUES"
              " (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)", row)
    expect_equal("insert rowcount", c.rowcount, 1)
    expect_equal("insert lastrowid", c.lastrowid, 1)
    c.execute("SELECT i, u, d, f, s, b, dt, day, tm, n FROM t WHERE id = %s", (1,))
    got = c.fetchone()
    expect_equal("types round trip", tuple(got) if got else None, row)
    expect_equal("column names", [d[0] for d in c.description],
                 ["i", "u", "d", "f", "s", "b", "dt", "day", "tm", "n"])

    c.executemany("INSERT INTO t (i, s) VALUES (%s, %s)",
                  [(n, f"row {n}") for n in range(2, 12)])
    expect_equal("executemany rowcount", c.rowcount, 10)
    c.execute("UPDATE t SET i = i + 100 WHERE i BETWEEN 2 AND 6")
    expect_equal("update rowcount", c.rowcount, 5)
    c.execute("SELECT COUNT(*), SUM(i) FROM t WHERE s LIKE 'row %%'")
    expect_equal("aggregate", c.fetchone(), (10, decimal.Decimal(sum(range(2, 12)) + 500)))

    # Transactions: rollback drops the change, commit keeps it.
    conn.autocommit(False)
    c.execute("DELETE FROM t WHERE s LIKE 'row %%'")
    conn.rollback()
    c.execute("SELECT COUNT(*) FROM t")
    expect_equal("rolled back", c.fetchone()[0], 11)
    c.execute("DELETE FROM t WHERE id = 11")
    conn.commit()
    c.execute("SELECT COUNT(*) FROM t")
    expect_equal("committed", c.fetchone()[0], 10)
    conn.autocommit(True)

    expect_error("duplicate key", c, "INSERT INTO t (id) VALUES (1)", 1062)
    expect_error("unknown table", c, "SELECT * FROM nope", 1146)
    expect_error("syntax", c, "SELEKT 1", 1064)
    expect_error("unknown column", c, "SELECT nope FROM t", 1054)
    c.execute("SELECT 1")
    expect_equal("usable after errors", c.fetchone(), (1,))

    # A server-side cursor streams rows instead of buffering the result.
    if driver == "pymysql":
        import pymysql.cursors

        stream = conn.cursor(pymysql.cursors.SSCursor)
    else:
        import MySQLdb.cursors

        stream = conn.cursor(MySQLdb.cursors.SSCursor)
    stream.execute("SELECT id FROM t ORDER BY id")
    expect_equal("unbuffered rows", [r[0] for r in stream], list(range(1, 11)))
    stream.close()

    conn.ping()
    conn.close()

    # Multi-statements: every result in order.
    if driver == "pymysql":
        from pymysql.constants import CLIENT

        multi = connect(driver, database=database, client_flag=CLIENT.MULTI_STATEMENTS)
    else:
        from MySQLdb.constants import CLIENT

        multi = connect(driver, database=database, client_flag=CLIENT.MULTI_STATEMENTS)
    m = multi.cursor()
    m.execute("SELECT 1; SELECT 'two', 2; UPDATE t SET n = 7 WHERE id <= 3")
    results = [m.fetchall()]
    while m.nextset():
        results.append((m.fetchall(), m.rowcount))
    expect_equal("multi-statement results", [tuple(map(tuple, results[0]))] + [
        (tuple(map(tuple, rows)), count) for rows, count in results[1:]
    ], [((1,),), ((("two", 2),), 1), ((), 3)])
    m.execute(f"DROP DATABASE {database}")
    multi.close()


def sqlalchemy_checks():
    import sqlalchemy as sa
    from sqlalchemy.orm import declarative_base, relationship, Session

    host, port = os.environ["DB_HOST"], os.environ["DB_PORT"]
    for dialect in ["pymysql", "mysqldb"]:
        database = f"orm_{dialect}"
        server = sa.create_engine(f"mysql+{dialect}://root@{host}:{port}/?charset=utf8mb4")
        with server.begin() as conn:
            conn.execute(sa.text(f"DROP DATABASE IF EXISTS {database}"))
            conn.execute(sa.text(f"CREATE DATABASE {database}"))
        engine = sa.create_engine(
            f"mysql+{dialect}://root@{host}:{port}/{database}?charset=utf8mb4")
        Base = declarative_base()

        class Author(Base):
            __tablename__ = "author"
            id = sa.Column(sa.Integer, primary_key=True)
            name = sa.Column(sa.String(80), nullable=False, unique=True)
            books = relationship("Book", back_populates="author", passive_deletes=True,
                                 order_by="Book.id")

        class Book(Base):
            __tablename__ = "book"
            id = sa.Column(sa.Integer, primary_key=True)
            title = sa.Column(sa.String(200), nullable=False)
            price = sa.Column(sa.Numeric(8, 2))
            published = sa.Column(sa.DateTime)
            author_id = sa.Column(sa.Integer, sa.ForeignKey("author.id", ondelete="CASCADE"),
                                  nullable=False, index=True)
            author = relationship("Author", back_populates="books")

        Base.metadata.create_all(engine)
        expect_equal(f"{dialect}: reflected tables", sorted(sa.inspect(engine).get_table_names()),
                     ["author", "book"])
        with Session(engine) as session:
            ada = Author(name="Ada", books=[
                Book(title="Notes", price=decimal.Decimal("12.50"),
                     published=datetime.datetime(1843, 9, 1, 12, 0)),
                Book(title="Letters", price=decimal.Decimal("7.25")),
            ])
            session.add_all([ada, Author(name="Grace", books=[Book(title="Compilers")])])
            session.commit()
            counts = session.execute(
                sa.select(Author.name, sa.func.count(Book.id), sa.func.sum(Book.price))
                .join(Book).group_by(Author.name).order_by(Author.name)).all()
            expect_equal(f"{dialect}: join with GROUP BY", [tuple(r) for r in counts],
                         [("Ada", 2, decimal.Decimal("19.75")), ("Grace", 1, None)])
            ada = session.execute(sa.select(Author).where(Author.name == "Ada")).scalar_one()
            expect_equal(f"{dialect}: relationship", [b.title for b in ada.books],
                         ["Notes", "Letters"])
            expect_equal(f"{dialect}: datetime", ada.books[0].published,
                         datetime.datetime(1843, 9, 1, 12, 0))
            ada.books[1].price = decimal.Decimal("8.00")
            session.commit()
            expect_equal(f"{dialect}: update", session.execute(
                sa.select(Book.price).where(Book.title == "Letters")).scalar_one(),
                decimal.Decimal("8.00"))
            try:
                session.add(Author(name="Ada"))
                session.commit()
                expect_equal(f"{dialect}: unique violation", "committed", "IntegrityError")
            except sa.exc.IntegrityError as e:
                expect_equal(f"{dialect}: unique violation code", error_code(e.orig), 1062)
                session.rollback()
            try:
                session.add(Book(title="Orphan", author_id=999))
                session.commit()
                expect_equal(f"{dialect}: orphan", "committed", "IntegrityError")
            except sa.exc.IntegrityError as e:
                expect_equal(f"{dialect}: orphan code", error_code(e.orig), 1452)
                session.rollback()
            session.delete(session.execute(
                sa.select(Author).where(Author.name == "Ada")).scalar_one())
            session.commit()
            expect_equal(f"{dialect}: cascade", session.execute(
                sa.select(sa.func.count()).select_from(Book)).scalar_one(), 1)
        Base.metadata.drop_all(engine)
        with server.begin() as conn:
            conn.execute(sa.text(f"DROP DATABASE {database}"))
        engine.dispose()
        server.dispose()


def django_checks():
    import django
    from django.conf import settings

    database = "django_check"
    setup = connect("mysqldb")
    with setup.cursor() as c:
        c.execute(f"DROP DATABASE IF EXISTS {database}")
        c.execute(f"CREATE DATABASE {database}")
    settings.configure(
        INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth"],
        DATABASES={"default": dict(
            ENGINE="django.db.backends.mysql", NAME=database, USER="root",
            HOST=os.environ["DB_HOST"], PORT=os.environ["DB_PORT"])},
        USE_TZ=True,
    )
    django.setup()
    from django.core.management import call_command
    from django.contrib.auth.models import Group, Permission, User

    call_command("migrate", verbosity=0)
    user = User.objects.create_user("ada", "ada@example.com", "secret")
    group = Group.objects.create(name="engineers")
    user.groups.add(group)
    group.permissions.add(*Permission.objects.filter(codename__startswith="add_"))
    expect_equal("django: user in group", User.objects.filter(groups__name="engineers").count(), 1)
    expect_equal("django: permission through the group", user.has_perm("auth.add_user"), True)
    expect_equal("django: no other permission", user.has_perm("auth.delete_user"), False)
    expect_equal("django: password", User.objects.get(username="ada").check_password("secret"),
                 True)
    group.delete()
    expect_equal("django: membership cascades", user.groups.count(), 0)
    with setup.cursor() as c:
        c.execute(f"DROP DATABASE {database}")
    setup.close()


def main():
    programs = {
        "pymysql": lambda: dbapi_checks("pymysql"),
        "mysqldb": lambda: dbapi_checks("mysqldb"),
        "sqlalchemy": sqlalchemy_checks,
        "django": django_checks,
    }
    if len(sys.argv) != 2 or sys.argv[1] not in programs:
        print("usage: check.py pymysql|mysqldb|sqlalchemy|django", file=sys.stderr)
        return 2
    programs[sys.argv[1]]()
    if failures:
        print(f"{len(failures)} mismatches", file=sys.stderr)
        return 1
    print(f"{sys.argv[1]}: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
