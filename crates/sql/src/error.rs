//! Every error a client can see, with its MySQL code and SQLSTATE, defined in one place.
//!
//! Layers below (storage, protocol) have their own error enums; they are turned into an
//! `Error` here (see the `From` impls) and into an ERR packet only by the server.
//!
//! Invariant: each `ErrorCode` has exactly one SQLSTATE, taken from MariaDB's
//! `sql_state.h` mapping, so clients that branch on SQLSTATE behave as with MariaDB.

use std::fmt;

/// MySQL error codes used by manycore (numbers as in MariaDB's `mysqld_error.h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u16)]
pub enum ErrorCode {
    /// ER_CANT_CREATE_FILE: MariaDB's ALTER DATABASE of a missing database (its db.opt).
    CantCreateFile = 1,
    ErrorOnWrite = 3,
    /// ER_CANT_GET_STAT: LOAD DATA INFILE of a missing server file.
    CantGetStat = 13,
    DbCreateExists = 1007,
    DbDropExists = 1008,
    DiskFull = 1021,
    /// ER_ERROR_ON_RENAME: RENAME TABLE into a database that does not exist.
    ErrorOnRename = 1025,
    /// ER_GET_ERRNO: an engine's error, as a warning (InnoDB's "Wrong create options").
    GetErrno = 1030,
    /// ER_ILLEGAL_HA: the table's engine lacks an option (a note for DISABLE KEYS).
    IllegalHa = 1031,
    ConCount = 1040,
    HandshakeError = 1043,
    DbAccessDenied = 1044,
    AccessDenied = 1045,
    NoDbSelected = 1046,
    UnknownCommand = 1047,
    BadNull = 1048,
    BadDb = 1049,
    TableExists = 1050,
    BadTable = 1051,
    NonUniq = 1052,
    ServerShutdown = 1053,
    BadField = 1054,
    WrongFieldWithGroup = 1055,
    WrongValueCount = 1058,
    /// ER_TOO_LONG_IDENT (also a user lock's name longer than 192 bytes).
    TooLongIdent = 1059,
    DupFieldName = 1060,
    DupKeyName = 1061,
    DupEntry = 1062,
    WrongFieldSpec = 1063,
    Parse = 1064,
    EmptyQuery = 1065,
    NonUniqTable = 1066,
    InvalidDefault = 1067,
    MultiplePriKey = 1068,
    TooManyKeys = 1069,
    TooLongKey = 1071,
    KeyColumnDoesNotExist = 1072,
    WrongAutoKey = 1075,
    /// ER_CANT_REMOVE_ALL_FIELDS: ALTER TABLE dropping every column.
    CantRemoveAllFields = 1090,
    CantDropFieldOrKey = 1091,
    /// ER_UPDATE_TABLE_USED: a multi-table DELETE's subquery reads a target.
    UpdateTableUsed = 1093,
    NoSuchThread = 1094,
    KillDenied = 1095,
    NoTablesUsed = 1096,
    WrongValueCountOnRow = 1136,
    InvalidUseOfNull = 1138,
    RegexpError = 1139,
    PasswordNoMatch = 1133,
    NonExistingGrant = 1141,
    TableAccessDenied = 1142,
    ColumnAccessDenied = 1143,
    NetPacketTooLarge = 1153,
    NetReadError = 1158,
    TooLongString = 1162,
    WrongColumnName = 1166,
    /// ER_FT_MATCHING_KEY_NOT_FOUND: MATCH's columns are no FULLTEXT index's.
    FtMatchingKeyNotFound = 1191,
    UnknownSystemVariable = 1193,
    /// ER_TRANS_CACHE_FULL: a transaction larger than one log record.
    TransCacheFull = 1197,
    WrongArguments = 1210,
    LockWaitTimeout = 1205,
    LockDeadlock = 1213,
    WrongUsage = 1221,
    SpecificAccessDenied = 1227,
    LocalVariable = 1228,
    GlobalVariable = 1229,
    NoDefault = 1230,
    WrongValueForVar = 1231,
    WrongTypeForVar = 1232,
    /// ER_CANT_USE_OPTION_HERE: SQL_CALC_FOUND_ROWS past the first query block.
    WrongPlacement = 1234,
    NotSupportedYet = 1235,
    /// ER_INNODB_NO_FT_TEMP_TABLE: a FULLTEXT index on a temporary table.
    InnodbNoFtTempTable = 1796,
    OperandColumns = 1241,
    SubqueryNoOneRow = 1242,
    UnknownStmtHandler = 1243,
    /// ER_NON_UPDATABLE_TABLE: UPDATE naming a derived table.
    /// ER_BAD_FT_COLUMN: a FULLTEXT index on a column that is not text.
    BadFtColumn = 1283,
    NonUpdatableTable = 1288,
    TruncatedWrongValue = 1292,
    /// ER_UNKNOWN_TIME_ZONE: a named zone (no time zone tables) or a bad offset.
    UnknownTimeZone = 1298,
    InvalidCharacterString = 1300,
    WarnDataOutOfRange = 1264,
    WarnDataTruncated = 1265,
    WrongStringLength = 1470,
    SpDoesNotExist = 1305,
    QueryInterrupted = 1317,
    DivisionByZero = 1365,
    NoDefaultForField = 1364,
    TruncatedWrongValueForField = 1366,
    DataTooLong = 1406,
    WrongValueForType = 1411,
    /// ER_SP_BAD_SQLSTATE: SIGNAL of a malformed SQLSTATE or of class '00'.
    SpBadSqlstate = 1407,
    NonInsertableTable = 1471,
    WrongParamcountToNativeFct = 1582,
    WrongParametersToNativeFct = 1583,
    OutOfResources = 1041,
    RecordFileFull = 1114,
    UnknownError = 1105,
    FeatureDisabled = 1289,
    OptionPreventsStatement = 1290,
    /// ER_WRONG_FIELD_TERMINATORS: LOAD DATA's ENCLOSED BY or ESCAPED BY longer than one
    /// character.
    WrongFieldTerminators = 1083,
    /// ER_TEXTFILE_NOT_READABLE: LOAD DATA INFILE of a directory or unreadable file.
    TextfileNotReadable = 1085,
    /// ER_FILE_EXISTS_ERROR: SELECT ... INTO OUTFILE/DUMPFILE of an existing file.
    FileExists = 1086,
    /// ER_WARN_TOO_FEW_RECORDS: a LOAD DATA line with fewer fields than targets.
    WarnTooFewRecords = 1261,
    /// ER_WARN_TOO_MANY_RECORDS: a LOAD DATA line with more fields than targets.
    WarnTooManyRecords = 1262,
    /// ER_WARN_NULL_TO_NOTNULL: LOAD DATA's NULL for a NOT NULL column.
    WarnNullToNotnull = 1263,
    /// ER_LOAD_INFILE_CAPABILITY_DISABLED: LOAD DATA LOCAL from a client that did not
    /// offer to send files.
    LoadInfileCapabilityDisabled = 4166,
    CantDoThisDuringAnTransaction = 1179,
    ReadOnlyTransaction = 1792,
    UnknownTable = 1109,
    NoSuchTable = 1146,
    IllegalReference = 1247,
    InvalidGroupFuncUse = 1111,
    MixOfGroupFuncAndFields = 1140,
    WrongNumberOfColumnsInSelect = 1222,
    DataOutOfRange = 1690,
    UnknownCharacterSet = 1115,
    UnknownCollation = 1273,
    CollationCharsetMismatch = 1253,
    CantAggregate2Collations = 1267,
    CantAggregate3Collations = 1270,
    CantAggregateNCollations = 1271,
    WrongDbName = 1102,
    WrongTableName = 1103,
    TooBigPrecision = 1426,
    TooBigScale = 1425,
    MBiggerThanD = 1427,
    TooBigFieldLength = 1074,
    /// ER_TOO_BIG_SET: a SET of more than 64 members.
    TooBigSet = 1097,
    /// ER_DUPLICATED_VALUE_IN_TYPE: an ENUM or SET member declared twice.
    DuplicatedValueInType = 1291,
    /// ER_ILLEGAL_VALUE_FOR_TYPE: a SET member with a comma.
    IllegalValueForType = 1367,
    WrongSubKey = 1089,
    KeyPartZero = 1391,
    PrimaryCantHaveNull = 1171,
    BlobCantHaveDefault = 1101,
    InvalidOnUpdate = 1294,
    NoSuchIndex = 1176,
    /// ER_WRONG_NAME_FOR_INDEX: RENAME INDEX from or to PRIMARY.
    WrongNameForIndex = 1280,
    CheckNoSuchTable = 1177,
    UnsupportedPs = 1295,
    TooManyRows = 1172,
    CantUpdateWithReadlock = 1223,
    NoSuchUser = 1449,
    /// ER_PROCACCESS_DENIED_ERROR: EXECUTE or ALTER ROUTINE missing for a routine.
    ProcaccessDenied = 1370,
    /// ER_FORBID_SCHEMA_CHANGE: RENAME TABLE of a view into another database.
    ForbidSchemaChange = 1450,
    /// ER_UNKNOWN_ALTER_ALGORITHM and ER_UNKNOWN_ALTER_LOCK: a word ALGORITHM= or LOCK=
    /// does not take.
    UnknownAlterAlgorithm = 1800,
    UnknownAlterLock = 1801,
    /// ER_ALTER_OPERATION_NOT_SUPPORTED and ER_ALTER_OPERATION_NOT_SUPPORTED_REASON: an
    /// ALGORITHM or LOCK asking for less than the change needs.
    AlterOperationNotSupported = 1845,
    AlterOperationNotSupportedReason = 1846,
    /// ER_DA_INVALID_CONDITION_NUMBER: GET DIAGNOSTICS CONDITION n past the last.
    DaInvalidConditionNumber = 1758,
    CannotUser = 1396,
    PasswordAnonymousUser = 1131,
    PasswordNotAllowed = 1132,
    MustChangePassword = 1820,
    AccountHasBeenLocked = 3118,
    /// MariaDB's code for a locked account ("Access denied, this account is locked").
    AccountLocked = 4151,
    NonexistingTableGrant = 1147,
    NonexistingProcGrant = 1403,
    IllegalGrantForTable = 1144,
    UserCreateExists = 1973,
    UserDropExists = 1974,
    PasswordFormat = 1372,
    PluginIsNotLoaded = 1524,
    SecureTransportRequired = 3159,
    MalformedPacket = 1835,
    IncorrectGlobalLocalVar = 1238,
    VariableIsReadonly = 1621,
    TooBigDisplaywidth = 1439,
    WrongGroupField = 1056,
    WrongKeyColumn = 1167,
    UnknownStorageEngine = 1286,
    /// ER_WARN_DEPRECATED_SYNTAX: INTO OUTFILE after FROM, as a warning.
    WarnDeprecatedSyntax = 1287,
    /// ER_ILLEGAL_HA_CREATE_OPTION: a ROW_FORMAT InnoDB does not have.
    IllegalHaCreateOption = 1478,
    /// ER_CANT_CREATE_TABLE, with InnoDB's errno 150 (a malformed foreign key), 121 (a
    /// constraint name taken) or 140 (a ROW_FORMAT InnoDB does not have).
    CantCreateTable = 1005,
    /// ER_WRONG_FK_DEF: a foreign key's column counts differ.
    WrongFkDef = 1239,
    /// ER_ROW_IS_REFERENCED_2: a parent row still has children.
    RowIsReferenced2 = 1451,
    /// ER_NO_REFERENCED_ROW_2: a child row without a parent.
    NoReferencedRow2 = 1452,
    /// ER_DROP_INDEX_FK: the index a foreign key needs.
    DropIndexFk = 1553,
    /// ER_GET_ERRMSG: what MariaDB reports for InnoDB's errors without a code of their own
    /// (193, cascades nested deeper than its limit).
    GetErrmsg = 1296,
    /// ER_DUP_CONSTRAINT_NAME: two CHECK constraints of a table with one name.
    DupConstraintName = 1826,
    /// ER_FK_COLUMN_CANNOT_DROP_CHILD: dropping a parent column a foreign key names.
    FkColumnCannotDropChild = 1829,
    /// ER_FK_COLUMN_CANNOT_CHANGE_CHILD: changing the type of a parent column a foreign
    /// key names.
    FkColumnCannotChangeChild = 1833,
    /// ER_CONSTRAINT_FAILED: a row violates a CHECK constraint.
    ConstraintFailed = 4025,
    /// ER_VIRTUAL_COLUMN_FUNCTION_IS_NOT_ALLOWED: a generated column's expression calls a
    /// function it may not (a subquery, an aggregate, a non-deterministic one).
    GeneratedColumnFunctionNotAllowed = 1901,
    /// ER_PRIMARY_KEY_BASED_ON_GENERATED_COLUMN
    PrimaryKeyOnGeneratedColumn = 1903,
    /// ER_WRONG_FK_OPTION_FOR_GENERATED_COLUMN: a foreign key on a generated column whose
    /// action would write it (ON DELETE SET NULL, ON UPDATE SET NULL or CASCADE).
    WrongFkOptionForGeneratedColumn = 1905,
    /// ER_UNSUPPORTED_ACTION_ON_GENERATED_COLUMN: ALTER switching a generated column
    /// between VIRTUAL and STORED.
    UnsupportedActionOnGeneratedColumn = 1907,
    /// ER_FOREIGN_DUPLICATE_KEY_WITH_CHILD_INFO: a cascade would duplicate a child's key.
    ForeignDuplicateKeyWithChildInfo = 1761,
    /// ER_WARNING_NON_DEFAULT_VALUE_FOR_GENERATED_COLUMN: a value written to a generated
    /// column (an error in strict mode, else a warning and the value is ignored).
    NonDefaultValueForGeneratedColumn = 1906,
    /// ER_EXPRESSION_REFERS_TO_UNINIT_FIELD: a generated column reads itself or a later
    /// generated column.
    ExpressionRefersToUninitField = 4029,
    /// ER_QUERY_RESULT_INCOMPLETE: a recursive CTE stopped at max_recursive_iterations.
    QueryResultIncomplete = 1931,
    /// ER_WRONG_OBJECT: "'db.t' is not of type 'VIEW'".
    WrongObject = 1347,
    ViewSelectTmptable = 1352,
    ViewWrongList = 1353,
    /// ER_VIEW_INVALID: a view reads a table or column that is gone.
    ViewInvalid = 1356,
    ViewNonupdCheck = 1368,
    TrgAlreadyExists = 1359,
    TrgDoesNotExist = 1360,
    TrgOnViewOrTempTable = 1361,
    TrgInWrongSchema = 1435,
    TrgCantChangeRow = 1362,
    TrgNoSuchRowInTrg = 1363,
    /// ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG: a trigger writes a table its statement
    /// already writes.
    CantUpdateUsedTableInSfOrTrg = 1442,
    /// ER_SIGNAL_EXCEPTION: SIGNAL SQLSTATE '45000' (its SQLSTATE is the one signalled).
    SignalException = 1644,
    /// ER_SP_LILABEL_MISMATCH: LEAVE or ITERATE naming no enclosing label.
    SpLilabelMismatch = 1308,
    /// ER_SP_LABEL_REDEFINE: a label reused inside its own statement.
    SpLabelRedefine = 1309,
    /// ER_SP_LABEL_MISMATCH: an end label that is not the statement's begin label.
    SpLabelMismatch = 1310,
    /// ER_SP_BADRETURN: RETURN outside a function.
    SpBadReturn = 1313,
    /// ER_SP_NORETURN: a function's body without RETURN (at CREATE).
    SpNoreturn = 1320,
    /// ER_SP_NORETURNEND: a function's body ended without running a RETURN.
    SpNoreturnend = 1321,
    /// ER_SP_NO_RECURSION: a stored function that calls itself.
    SpNoRecursion = 1424,
    /// ER_SP_RECURSION_LIMIT: a procedure CALLed inside itself (max_sp_recursion_depth
    /// is 0).
    SpRecursionLimit = 1456,
    /// ER_STACK_OVERRUN_NEED_MORE: stored routines nested deeper than a worker's stack
    /// allows.
    StackOverrunNeedMore = 1436,
    /// ER_NATIVE_FCT_NAME_COLLISION: a note for a function named as a built-in one.
    NativeFctNameCollision = 1585,
    /// ER_SF_OUT_INOUT_ARG_NOT_ALLOWED: a function with OUT or INOUT parameters called in
    /// an expression.
    SfOutInoutArgNotAllowed = 4187,
    /// ER_SP_UNDECLARED_VAR: SELECT ... INTO a name that is no local variable.
    SpUndeclaredVar = 1327,
    /// ER_SP_DUP_VAR: a local variable declared twice in one block.
    SpDupVar = 1331,
    /// ER_SP_COND_MISMATCH: a handler or SIGNAL naming no declared condition.
    SpCondMismatch = 1319,
    /// ER_SP_FETCH_NO_DATA: SELECT ... INTO found no row (a 'not found' condition).
    SpFetchNoData = 1329,
    /// ER_SP_DUP_COND: a condition declared twice in one block.
    SpDupCond = 1332,
    /// ER_SP_VARCOND_AFTER_CURSHNDLR: a variable or condition declared after a handler.
    SpVarcondAfterCurshndlr = 1337,
    /// ER_SP_DUP_HANDLER: two handlers of one block for the same condition.
    SpDupHandler = 1413,
    /// ER_SP_BAD_CURSOR_SELECT: a cursor's SELECT with INTO.
    SpBadCursorSelect = 1323,
    /// ER_SP_CURSOR_MISMATCH: OPEN, FETCH or CLOSE of no declared cursor.
    SpCursorMismatch = 1324,
    /// ER_SP_CURSOR_ALREADY_OPEN: OPEN of an open cursor.
    SpCursorAlreadyOpen = 1325,
    /// ER_SP_CURSOR_NOT_OPEN: FETCH or CLOSE of a cursor that is not open.
    SpCursorNotOpen = 1326,
    /// ER_SP_WRONG_NO_OF_FETCH_ARGS: FETCH into more or fewer variables than columns.
    SpWrongNoOfFetchArgs = 1328,
    /// ER_SP_DUP_CURS: a cursor declared twice in one block.
    SpDupCurs = 1333,
    /// ER_SP_CURSOR_AFTER_HANDLER: a cursor declared after a handler.
    SpCursorAfterHandler = 1338,
    /// ER_WRONG_PARAMCOUNT_TO_CURSOR: OPEN with more or fewer arguments than the cursor's
    /// parameters.
    WrongParamcountToCursor = 4080,
    /// ER_ROW_VARIABLE_DOES_NOT_HAVE_FIELD: `record.field` of a FOR loop's record that
    /// has no such field.
    RowVariableNoField = 4082,
    /// ER_WRONG_VALUE: a handler or condition for error number 0.
    WrongValue = 1525,
    /// ER_SIGNAL_WARN: SIGNAL of an SQLSTATE of class '01' (a warning).
    SignalWarn = 1642,
    /// ER_SIGNAL_BAD_CONDITION_TYPE: SIGNAL of a condition declared by error number.
    SignalBadConditionType = 1646,
    /// ER_RESIGNAL_WITHOUT_ACTIVE_HANDLER: RESIGNAL outside a handler's body.
    ResignalWithoutActiveHandler = 1645,
    /// ER_SP_CASE_NOT_FOUND: a CASE statement with no matching WHEN and no ELSE.
    SpCaseNotFound = 1339,
    /// ER_SP_NO_RETSET: a result set (a plain SELECT) in a trigger.
    SpNoRetset = 1415,
    /// ER_COMMIT_NOT_ALLOWED_IN_SF_OR_TRG: a statement that commits (COMMIT, DDL...) in
    /// a function's or a trigger's body.
    CommitNotAllowedInSfOrTrg = 1422,
    /// ER_STMT_NOT_ALLOWED_IN_SF_OR_TRG: dynamic SQL in a function's or trigger's body.
    StmtNotAllowedInSfOrTrg = 1336,
    /// ER_VARIABLE_NOT_SETTABLE_IN_SF_OR_TRIGGER: SET autocommit in a function or trigger.
    VariableNotSettableInSfOrTrg = 1445,
    /// ER_SP_BADSTATEMENT: LOCK, UNLOCK or LOAD DATA in a stored program's body.
    SpBadstatement = 1314,
    /// ER_SP_NO_RECURSIVE_CREATE: CREATE PROCEDURE / FUNCTION / TRIGGER in a body.
    SpNoRecursiveCreate = 1303,
    /// ER_SP_NO_DROP_SP: DROP or ALTER PROCEDURE / FUNCTION in a body.
    SpNoDropSp = 1357,
    /// ER_SP_ALREADY_EXISTS: CREATE PROCEDURE of a name in use.
    SpAlreadyExists = 1304,
    /// ER_SP_WRONG_NO_OF_ARGS: a CALL with more or fewer arguments than parameters.
    SpWrongNoOfArgs = 1318,
    /// ER_SP_BADSELECT: a CALL returning result sets to a client without
    /// CLIENT_MULTI_RESULTS.
    SpBadselect = 1312,
    /// ER_SP_DUP_PARAM: a parameter name given twice.
    SpDupParam = 1330,
    /// ER_SP_NOT_VAR_ARG: an OUT or INOUT argument that is not a user variable.
    SpNotVarArg = 1414,
    /// ER_DUP_SIGNAL_SET: one condition item set twice in a SIGNAL.
    DupSignalSet = 1641,
    /// ER_SIGNAL_NOT_FOUND: SIGNAL of an SQLSTATE of class '02' (not found).
    SignalNotFound = 1643,
    /// ER_REFERENCED_TRG_DOES_NOT_EXIST: FOLLOWS or PRECEDES a trigger that is not there.
    ReferencedTrgDoesNotExist = 4031,
    ViewRecursive = 1462,
    /// ER_IT_IS_A_VIEW: DROP TABLE of a view.
    IsAView = 1965,
    UnknownView = 4092,
    WithColWrongList = 4002,
    DupQueryName = 4004,
    RecursiveWithoutAnchors = 4005,
    NotStandardCompliantRecursive = 4008,
    /// ER_WRONG_WINDOW_SPEC_NAME: OVER w names no window of the WINDOW clause.
    WrongWindowSpecName = 4009,
    /// ER_DUP_WINDOW_NAME: two windows of one WINDOW clause share a name.
    DupWindowName = 4010,
    PartitionListInReferencingWindowSpec = 4011,
    OrderListInReferencingWindowSpec = 4012,
    WindowFrameInReferencedWindowSpec = 4013,
    /// ER_BAD_COMBINATION_OF_WINDOW_FRAME_BOUND_SPECS: a frame from UNBOUNDED FOLLOWING,
    /// to UNBOUNDED PRECEDING, or between the current row and a row on its wrong side.
    BadCombinationOfWindowFrameBoundSpecs = 4014,
    /// ER_WRONG_PLACEMENT_OF_WINDOW_FUNCTION: a window function outside the select list
    /// and ORDER BY (WHERE, GROUP BY, HAVING, a window's own specification...).
    WrongPlacementOfWindowFunction = 4015,
    /// ER_WINDOW_FUNCTION_IN_WINDOW_SPEC: a window names a select alias of a value a window
    /// function makes.
    WindowFunctionInWindowSpec = 4016,
    /// ER_NO_ORDER_LIST_IN_WINDOW_SPEC: RANK, LAG... over a window without ORDER BY.
    NoOrderListInWindowSpec = 4018,
    /// ER_INVALID_NTILE_ARGUMENT
    InvalidNtileArgument = 4024,
    /// ER_SUM_FUNC_WITH_WINDOW_FUNC_AS_ARG
    SumFuncWithWindowFuncAsArg = 4074,
    /// ER_ILLEGAL_PARAMETER_DATA_TYPE_FOR_OPERATION: e.g. GET_LOCK(5, 0).
    IllegalParameterDataTypeForOperation = 4079,
    /// ER_JSON_EOS: a JSON function's text argument ends too early (a warning).
    JsonEos = 4037,
    /// ER_JSON_SYNTAX: a JSON function's text argument is not JSON (a warning).
    JsonSyntax = 4038,
    /// ER_JSON_DEPTH: JSON nested deeper than MariaDB's limit of 32 (a warning).
    JsonDepth = 4040,
    /// ER_JSON_PATH_EOS: a JSON path ends too early (a warning).
    JsonPathEos = 4041,
    /// ER_JSON_PATH_SYNTAX: a JSON path argument is malformed (a warning).
    JsonPathSyntax = 4042,
    /// ER_JSON_PATH_NO_WILDCARD: `*` or `**` in a path of a function wanting one value.
    JsonPathNoWildcard = 4044,
    /// ER_JSON_ONE_OR_ALL: JSON_CONTAINS_PATH's or JSON_SEARCH's mode is neither 'one'
    /// nor 'all' (a warning).
    JsonOneOrAll = 4046,
    /// ER_JSON_PATH_EMPTY: JSON_REMOVE of the path `$` (a warning).
    JsonPathEmpty = 4051,
}

impl ErrorCode {
    pub fn code(self) -> u16 {
        self as u16
    }

    /// SQLSTATE for this code, as MariaDB reports it.
    pub fn sqlstate(self) -> &'static str {
        use ErrorCode::*;
        match self {
            ConCount | HandshakeError | NetPacketTooLarge | NetReadError | ServerShutdown
            | MalformedPacket | UnknownCommand => "08S01",
            AccessDenied | PasswordNoMatch => "28000",
            NoDbSelected => "3D000",
            ExpressionRefersToUninitField => "01000",
            BadNull | DupEntry | PrimaryCantHaveNull | ConstraintFailed => "23000",
            RowIsReferenced2 | NoReferencedRow2 | ForeignDuplicateKeyWithChildInfo => "23000",
            WrongFkDef => "42000",
            TableExists => "42S01",
            BadTable | NoSuchTable | UnknownTable | UnknownView | IsAView => "42S02",
            NonUniq | WrongFieldWithGroup => "23000",
            BadField => "42S22",
            DupFieldName => "42S21",
            DupKeyName => "42000",
            WrongValueCount | WrongValueCountOnRow => "21S01",
            OperandColumns | WrongNumberOfColumnsInSelect => "21000",
            SubqueryNoOneRow => "21000",
            DbAccessDenied
            | NonexistingTableGrant
            | NonexistingProcGrant
            | IllegalGrantForTable
            | BadDb
            | Parse
            | EmptyQuery
            | NonUniqTable
            | InvalidDefault
            | MultiplePriKey
            | TooManyKeys
            | TooLongKey
            | KeyColumnDoesNotExist
            | WrongAutoKey
            | CantRemoveAllFields
            | CantDropFieldOrKey
            | WrongFieldSpec
            | TableAccessDenied
            | ColumnAccessDenied
            | ProcaccessDenied
            | TooLongString
            | TooLongIdent
            | WrongColumnName
            | SpecificAccessDenied
            | WrongPlacement
            | NoDefault
            | WrongValueForVar
            | WrongTypeForVar
            | NotSupportedYet
            | IllegalReference
            | MixOfGroupFuncAndFields
            | RegexpError
            | UnknownCharacterSet
            | CollationCharsetMismatch
            | WrongDbName
            | WrongTableName
            | TooBigPrecision
            | TooBigScale
            | MBiggerThanD
            | TooBigFieldLength
            | BlobCantHaveDefault
            | NoSuchIndex
            | WrongNameForIndex
            | SpDoesNotExist
            | WrongParamcountToNativeFct
            | WrongParametersToNativeFct
            | NonExistingGrant
            | TooManyRows
            | SpBadSqlstate
            | SpLilabelMismatch
            | SpLabelRedefine
            | SpLabelMismatch
            | SpBadReturn
            | SpNoreturn
            | SpUndeclaredVar
            | SpAlreadyExists
            | SpWrongNoOfArgs
            | SpDupParam
            | SpNotVarArg
            | SpDupVar
            | SpCondMismatch
            | SpDupCond
            | SpVarcondAfterCurshndlr
            | SpDupHandler
            | SpBadCursorSelect
            | SpCursorMismatch
            | SpDupCurs
            | SpCursorAfterHandler
            | WrongParamcountToCursor
            | DupSignalSet
            | TooBigDisplaywidth
            | WrongGroupField
            | WrongKeyColumn
            | UnknownStorageEngine
            | WrongFieldTerminators => "42000",
            ReadOnlyTransaction => "25006",
            SignalException => "45000",
            SignalNotFound | SpFetchNoData => "02000",
            SignalWarn => "01000",
            SpCursorAlreadyOpen | SpCursorNotOpen => "24000",
            ResignalWithoutActiveHandler => "0K000",
            SpCaseNotFound => "20000",
            SpNoreturnend => "2F005",
            SpNoRetset
            | SpBadselect
            | StmtNotAllowedInSfOrTrg
            | SpBadstatement
            | AlterOperationNotSupported
            | AlterOperationNotSupportedReason => "0A000",
            SpNoRecursiveCreate => "2F003",
            LockDeadlock => "40001",
            QueryInterrupted => "70100",
            DivisionByZero => "22012",
            WarnDataOutOfRange | DataOutOfRange => "22003",
            DataTooLong | WrongStringLength => "22001",
            TruncatedWrongValue
            | TruncatedWrongValueForField
            | InvalidCharacterString
            | IllegalValueForType => "22007",
            WarnDataTruncated | WarnTooFewRecords | WarnTooManyRecords => "01000",
            WarnNullToNotnull => "22004",
            InvalidUseOfNull => "22004",
            _ => "HY000",
        }
    }
}

/// An error as the client sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
    /// Set when the statement stopped to wait instead of failing: it was undone, and the
    /// session runs it again once the server awaited this (session invariant (4)).
    pub wait: Option<WaitFor>,
    /// What made a view invalid (1356): the first error binding its query met, which
    /// MariaDB's CHECK TABLE of the view reports before the 1356.
    pub cause: Option<Box<Error>>,
    /// A warning the engine adds after the error, which SHOW WARNINGS lists after it
    /// (InnoDB's 1030 after a 1005 of errno 140).
    pub trailing_warning: Option<Box<Error>>,
    /// A SIGNAL's own error number and SQLSTATE, which the client sees instead of
    /// `code`'s (`code` is the class's default: 1644 or 1643).
    pub signalled: Option<Box<Signalled>>,
}

/// A condition a statement raised without failing, as a stored program's handlers match
/// it (`compound`): a warning or a note, with its error number and SQLSTATE.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condition {
    /// "Warning" or "Note".
    pub level: &'static str,
    pub number: u16,
    pub sqlstate: String,
    pub message: String,
}

/// The condition a SIGNAL raised (`compound`): any SQLSTATE and MYSQL_ERRNO.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signalled {
    pub number: u16,
    pub sqlstate: String,
}

/// What an undone statement waits for before it runs again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitFor {
    /// A row that transaction `holder` (0: one that already finished) holds. Reaches a
    /// client only as 1205 after innodb_lock_wait_timeout.
    RowLock { holder: u64 },
    /// The end of transaction `holder`, which holds a row of a table DDL would rebuild,
    /// rename, truncate or drop (MariaDB's wait for the table's metadata lock). Reaches a
    /// client only as 1205 after lock_wait_timeout.
    TableLock { holder: u64 },
    /// The SLEEP() time the statement asked for beyond what was already slept for it.
    Sleep(std::time::Duration),
    /// The release of the user lock a GET_LOCK() call of the statement waits for (the
    /// session knows which: `user_lock::StatementLocks`), or the call's timeout. Never
    /// reaches a client: the call answers 1, 0 or NULL in the statement's next run.
    UserLock,
    /// The file LOAD DATA LOCAL names, which the client is asked for (`Wait::LocalFile`);
    /// the statement runs again once the session has it (`load_data`).
    LocalFile,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
            wait: None,
            cause: None,
            trailing_warning: None,
            signalled: None,
        }
    }

    /// A statement that must wait for transaction `holder` to end, then run again.
    pub fn lock_wait(holder: u64) -> Error {
        Error {
            wait: Some(WaitFor::RowLock { holder }),
            ..Error::lock_wait_timeout()
        }
    }

    /// A DDL statement that must wait for transaction `holder` to end, then run again.
    pub fn table_lock_wait(holder: u64) -> Error {
        Error {
            wait: Some(WaitFor::TableLock { holder }),
            ..Error::lock_wait_timeout()
        }
    }

    /// A statement that must sleep `unserved` more (SLEEP()), then run again.
    pub fn sleep(unserved: std::time::Duration) -> Error {
        Error {
            wait: Some(WaitFor::Sleep(unserved)),
            ..Error::interrupted()
        }
    }

    /// A LOAD DATA LOCAL that waits for the client's file, then runs again.
    pub fn local_file_wait() -> Error {
        Error {
            wait: Some(WaitFor::LocalFile),
            ..Error::interrupted()
        }
    }

    /// A statement whose GET_LOCK() call waits for a lock, then runs again.
    pub fn user_lock_wait() -> Error {
        Error {
            wait: Some(WaitFor::UserLock),
            ..Error::interrupted()
        }
    }

    pub fn lock_wait_timeout() -> Error {
        Error::new(
            ErrorCode::LockWaitTimeout,
            "Lock wait timeout exceeded; try restarting transaction",
        )
    }

    pub fn sqlstate(&self) -> &str {
        match &self.signalled {
            Some(s) => &s.sqlstate,
            None => self.code.sqlstate(),
        }
    }

    /// The error number the client sees: `code`'s, or a SIGNAL's MYSQL_ERRNO.
    pub fn number(&self) -> u16 {
        self.signalled
            .as_ref()
            .map_or(self.code.code(), |s| s.number)
    }

    /// 1064 with MySQL's "near '...'" text: `rest` is the unparsed remainder of the query.
    pub fn parse_near(rest: &str, line: usize) -> Error {
        let near: String = rest.chars().take(80).collect();
        Error::new(
            ErrorCode::Parse,
            format!(
                "You have an error in your SQL syntax; check the manual that corresponds to \
                 your MariaDB server version for the right syntax to use near '{near}' at line \
                 {line}"
            ),
        )
    }

    /// 1064 near the last `keyword` of `text` (lower case) that starts a word: for clauses
    /// the parser accepts where MariaDB's grammar has none.
    pub fn parse_near_keyword(text: &str, keyword: &str) -> Error {
        let lower = text.to_ascii_lowercase();
        let at = lower
            .rmatch_indices(keyword)
            .map(|(i, _)| i)
            .find(|&i| i == 0 || !lower.as_bytes()[i - 1].is_ascii_alphanumeric())
            .unwrap_or(text.len());
        let rest = text[at..].trim_end().trim_end_matches(';');
        let line = text[..at].matches('\n').count() + 1;
        Error::parse_near(rest, line)
    }

    pub fn no_such_table(db: &str, table: &str) -> Error {
        Error::new(
            ErrorCode::NoSuchTable,
            format!("Table '{db}.{table}' doesn't exist"),
        )
    }

    pub fn bad_db(db: &str) -> Error {
        Error::new(ErrorCode::BadDb, format!("Unknown database '{db}'"))
    }

    /// 1115: no character set is called `name`.
    pub fn unknown_charset(name: &str) -> Error {
        Error::new(
            ErrorCode::UnknownCharacterSet,
            format!("Unknown character set: '{name}'"),
        )
    }

    pub fn bad_field(column: &str, clause: &str) -> Error {
        Error::new(
            ErrorCode::BadField,
            format!("Unknown column '{column}' in '{clause}'"),
        )
    }

    /// 1051 naming every unknown table (each `db.name`) in one message, as MariaDB does.
    pub fn bad_table(tables: &[String]) -> Error {
        Error::new(
            ErrorCode::BadTable,
            format!("Unknown table '{}'", tables.join(",")),
        )
    }

    /// 1109: `table` (a name, or `db.name`) is not one `place` reads.
    pub fn unknown_table(table: &str, place: &str) -> Error {
        Error::new(
            ErrorCode::UnknownTable,
            format!("Unknown table '{table}' in {place}"),
        )
    }

    pub fn duplicate_column(column: &str) -> Error {
        Error::new(
            ErrorCode::DupFieldName,
            format!("Duplicate column name '{column}'"),
        )
    }

    pub fn duplicate_key(key: &str) -> Error {
        Error::new(ErrorCode::DupKeyName, format!("Duplicate key name '{key}'"))
    }

    pub fn duplicate_check(name: &str) -> Error {
        Error::new(
            ErrorCode::DupConstraintName,
            format!("Duplicate CHECK constraint name '{name}'"),
        )
    }

    /// 1091 for DROP `what` (COLUMN, INDEX, FOREIGN KEY, CONSTRAINT) of a missing `name`.
    pub fn cant_drop(what: &str, name: &str) -> Error {
        Error::new(
            ErrorCode::CantDropFieldOrKey,
            format!("Can't DROP {what} `{name}`; check that it exists"),
        )
    }

    pub fn no_db_selected() -> Error {
        Error::new(ErrorCode::NoDbSelected, "No database selected")
    }

    pub fn deadlock() -> Error {
        Error::new(
            ErrorCode::LockDeadlock,
            "Deadlock found when trying to get lock; try restarting transaction",
        )
    }

    pub fn dup_entry(value: &str, key_name: &str) -> Error {
        Error::new(
            ErrorCode::DupEntry,
            format!("Duplicate entry '{value}' for key '{key_name}'"),
        )
    }

    /// 1901: `what` (a function or expression) in the `clause` (DEFAULT, CHECK, GENERATED
    /// ALWAYS AS) of column or constraint `of`.
    pub fn not_allowed_in_clause(what: &str, clause: &str, of: &str) -> Error {
        Error::new(
            ErrorCode::GeneratedColumnFunctionNotAllowed,
            format!(
                "Function or expression '{what}' cannot be used in the {clause} clause of `{of}`"
            ),
        )
    }

    pub fn not_supported(what: &str) -> Error {
        Error::new(
            ErrorCode::NotSupportedYet,
            format!("This version of manycore doesn't yet support '{what}'"),
        )
    }

    pub fn interrupted() -> Error {
        Error::new(
            ErrorCode::QueryInterrupted,
            "Query execution was interrupted",
        )
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ERROR {} ({}): {}",
            self.number(),
            self.sqlstate(),
            self.message
        )
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_states() {
        assert_eq!(ErrorCode::DupEntry.code(), 1062);
        assert_eq!(ErrorCode::DupEntry.sqlstate(), "23000");
        assert_eq!(ErrorCode::LockDeadlock.sqlstate(), "40001");
        assert_eq!(ErrorCode::AccessDenied.sqlstate(), "28000");
        assert_eq!(ErrorCode::TableAccessDenied.sqlstate(), "42000");
        assert_eq!(ErrorCode::NoSuchTable.sqlstate(), "42S02");
        assert_eq!(ErrorCode::DataTooLong.sqlstate(), "22001");
        assert_eq!(ErrorCode::NetPacketTooLarge.sqlstate(), "08S01");
        assert_eq!(ErrorCode::WarnDataOutOfRange.sqlstate(), "22003");
    }
}
