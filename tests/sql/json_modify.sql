-- The JSON functions that write or compare documents: JSON_SET, JSON_INSERT, JSON_REPLACE,
-- JSON_REMOVE, JSON_ARRAY_APPEND, JSON_ARRAY_INSERT, JSON_MERGE_PRESERVE (JSON_MERGE),
-- JSON_MERGE_PATCH, JSON_CONTAINS, JSON_CONTAINS_PATH, JSON_SEARCH, JSON_COMPACT and
-- JSON_LOOSE: their output (MariaDB reprints the whole document, numbers and strings as
-- written), NULLs, and warnings for bad JSON, bad paths, wildcards (4044), '$' in
-- JSON_REMOVE (4051) and a mode other than 'one' or 'all' (4046).

-- JSON_SET, JSON_INSERT, JSON_REPLACE: a missing member or position is added by SET and
-- INSERT, an existing one replaced by SET and REPLACE.
SELECT JSON_SET('{"a":1}', '$.b', 2, '$.a', 3), JSON_INSERT('{"a":1}', '$.b', 2, '$.a', 3), JSON_REPLACE('{"a":1}', '$.b', 2, '$.a', 3);
SELECT JSON_SET('[1,2]', '$[5]', 9), JSON_SET('1', '$[1]', 2), JSON_SET('{"a":1}', '$[0]', 5), JSON_SET('{"a":1}', '$[1]', 5), JSON_SET('[1]', '$.x', 5);
SELECT JSON_SET('{"a":1}', '$.a', 'x'), JSON_SET('{"a":1}', '$.a', JSON_ARRAY(1)), JSON_SET('{"a":1}', '$.a', TRUE), JSON_SET('{"a":1}', '$.a', NULL), JSON_SET(NULL, '$.a', 1), JSON_SET('{"a":1}', NULL, 1);
SELECT JSON_SET('{"a":1}', '$.b.c', 1), JSON_SET('{"a" : 1 ,"b":[ 1,2 ]}', '$.z', 1);
SELECT JSON_SET('{"a":1}', '$', 5), JSON_REPLACE('{"a":1}', '$', 5), JSON_INSERT('{"a":1}', '$', 5);
SELECT JSON_SET('{"a":1.50e0, "s":"x\\u0041"}', '$.b', 1) r1, JSON_REPLACE('{"a" : 1}', '$.z', 1) r2, JSON_INSERT('[ 1 ]', '$[0]', 2) r3, JSON_SET('{"a":1}', '$.a', 1.5) r4, JSON_SET('{"a":1}', '$.a', 1e0) r5;
SELECT JSON_SET('[]', '$[last]', 1), JSON_SET('{"a":{"b":1}}', '$.a.b', 2, '$.a.c', 3), JSON_INSERT('{"a":1}', '$."b c"', 2), JSON_SET('{"a\\"b":1}', '$."a\\"b"', 2);
SELECT JSON_SET('{"a":1}', '$.b', '[1, 2]'), JSON_SET('{"a":1}', '$.b', JSON_EXTRACT('[1, 2]', '$')), JSON_SET('{"a":1}', '$.b', 1.50), JSON_ARRAY_APPEND('[1]', '$', 'x"y');
SELECT JSON_SET('{"a":1}', '$.*', 1);
SHOW WARNINGS;
SELECT JSON_SET('{"a":1', '$.b', 1);
SHOW WARNINGS;
SELECT JSON_INSERT('{"a":1}', '$.a[', 1);
SHOW WARNINGS;
SELECT JSON_REPLACE('[1]', '$**.a', 1);
SHOW WARNINGS;
SELECT JSON_SET('{"a":1}', '$.b');

-- JSON_REMOVE: '$' is refused with 4051.
SELECT JSON_REMOVE('{"a":1,"b":[1,2]}', '$.a') r1, JSON_REMOVE('{"a":1,"b":[1,2]}', '$.b[0]') r2, JSON_REMOVE('{"a":1}', '$.z') r3, JSON_REMOVE('[1,2,3]', '$[0]', '$[0]') r5, JSON_REMOVE('[1,2]', '$[last]') r6;
SELECT JSON_REMOVE('{"a":1}', '$');
SHOW WARNINGS;
SELECT JSON_REMOVE('{"a":1}', '$.*');
SHOW WARNINGS;
SELECT JSON_REMOVE('{"a":1}', NULL), JSON_REMOVE(NULL, '$.a'), JSON_REMOVE('{ "a" : 1 }', '$.z'), JSON_REMOVE('{"a":1}', '$[0]'), JSON_REMOVE('[1]', '$.a');
SELECT JSON_REMOVE('{"a":1}');

-- JSON_ARRAY_APPEND, JSON_ARRAY_INSERT.
SELECT JSON_ARRAY_APPEND('[1,2]', '$', 3) r1, JSON_ARRAY_APPEND('{"a":1}', '$.a', 2) r2, JSON_ARRAY_APPEND('{"a":1}', '$', 2) r3, JSON_ARRAY_APPEND('{"a":[1]}', '$.a', 2, '$.a', 3) r4, JSON_ARRAY_APPEND('{"a":[1]}', '$.z', 2) r5, JSON_ARRAY_APPEND('[1]', '$', NULL) r6;
SELECT JSON_ARRAY_INSERT('[1,2]', '$[0]', 0) r1, JSON_ARRAY_INSERT('[1,2]', '$[9]', 9) r2, JSON_ARRAY_INSERT('{"a":[1]}', '$.a[1]', 2) r3, JSON_ARRAY_INSERT('{"a":1}', '$.a[0]', 2) r4, JSON_ARRAY_INSERT('[1,[2]]', '$[1][0]', 'x') r5, JSON_ARRAY_INSERT('[1,2]', '$[last]', 0) r6;
SELECT JSON_ARRAY_INSERT('[1,2]', '$', 0), JSON_ARRAY_INSERT('{"a":1}', '$.a', 0);
SELECT JSON_ARRAY_INSERT('{"a":1}', '$.z[0]', 2) a, JSON_ARRAY_INSERT('[1]', '$[3][0]', 2) b, JSON_ARRAY_APPEND('[1]', '$[3]', 2) c, JSON_ARRAY_APPEND('[[1]]', '$[0]', 2, '$[5]', 3) d, JSON_SET('[1]', '$[3][0]', 2) e, JSON_REMOVE('[1]', '$[3][0]') f, JSON_REPLACE('[1]', '$[3][0]', 2) g;
SELECT JSON_SET('[1]', '$[0]', JSON_ARRAY(1, 2)), JSON_MERGE('[1]', JSON_ARRAY(2, 3)), JSON_INSERT('{}', '$.a', JSON_OBJECT('b', TRUE));
SHOW WARNINGS;
SELECT JSON_ARRAY_INSERT('[1]', '$[*]', 0);
SHOW WARNINGS;
SELECT JSON_ARRAY_APPEND('[1]', '$[*]', 0);
SHOW WARNINGS;
SELECT JSON_ARRAY_APPEND('[1', '$', 0);
SHOW WARNINGS;

-- JSON_MERGE_PRESERVE / JSON_MERGE, JSON_MERGE_PATCH.
SELECT JSON_MERGE_PRESERVE('{"a":1}', '{"b":2}') r1, JSON_MERGE_PRESERVE('{"a":1}', '{"a":2}') r2, JSON_MERGE_PRESERVE('[1]', '[2]') r3, JSON_MERGE_PRESERVE('1', '2') r4, JSON_MERGE_PRESERVE('{"a":1}', '[2]') r5, JSON_MERGE_PRESERVE('[2]', '{"a":1}') r6, JSON_MERGE('{"a":[1]}', '{"a":{"b":1}}') r7;
SELECT JSON_MERGE_PRESERVE('{"a":{"x":1}}', '{"a":{"x":2,"y":3}}', '{"c":null}') r1, JSON_MERGE_PRESERVE('[1]', NULL) r2, JSON_MERGE_PRESERVE('"a"', '{"b":1}') r3, JSON_MERGE_PRESERVE('{"a" : 1}', '{"b" : 1}') r4;
SELECT JSON_MERGE_PRESERVE('[1', '[2]');
SHOW WARNINGS;
SELECT JSON_MERGE_PRESERVE('[1]', '{');
SHOW WARNINGS;
SELECT JSON_MERGE_PRESERVE('[1]');
SELECT JSON_MERGE_PATCH('{"a":1,"b":2}', '{"b":null,"c":3}') r1, JSON_MERGE_PATCH('{"a":{"x":1}}', '{"a":{"y":2}}') r2, JSON_MERGE_PATCH('[1]', '{"a":1}') r3, JSON_MERGE_PATCH('{"a":1}', '[2]') r4, JSON_MERGE_PATCH('1', '2') r5, JSON_MERGE_PATCH('{"a":1}', NULL) r6, JSON_MERGE_PATCH(NULL, '{"a":1}') r7, JSON_MERGE_PATCH('{}', '{"a":null}') r8;
SELECT JSON_MERGE_PATCH(NULL, NULL, '{"a":1}') r1, JSON_MERGE_PATCH('{"a":1}', NULL, '{"b":1}') r2, JSON_MERGE_PATCH('{"a":1}', '{"b":1}', NULL) r3, JSON_MERGE_PATCH('{"a": [1, 2]}', '{"a": {"b": null}}') r4;
SELECT JSON_MERGE_PATCH(NULL, '[1]') r1, JSON_MERGE_PATCH(NULL, '[1]', '{"a":1}') r2, JSON_MERGE_PATCH('{"a":1}', NULL, '[1]') r3, JSON_MERGE_PATCH('{"a":{"b":1}}', '{"a":{"b":null}}') r4, JSON_MERGE_PATCH('{"a":1, "a":2}', '{"b":1}') r5;
SELECT JSON_MERGE_PATCH(NULL, '[1,  2]'), JSON_MERGE_PATCH('[1,  2]', '{ "a" :  1}');
SELECT JSON_MERGE_PATCH('{"a":1}', '[');
SHOW WARNINGS;

-- JSON_CONTAINS, JSON_CONTAINS_PATH.
SELECT JSON_CONTAINS('{"a":1,"b":2}', '1', '$.a') r1, JSON_CONTAINS('{"a":1,"b":2}', '{"a":1}') r2, JSON_CONTAINS('[1,2,[3]]', '3') r3, JSON_CONTAINS('[1,2,[3]]', '[3]') r4, JSON_CONTAINS('[1,2]', '[1,1]') r5, JSON_CONTAINS('1', '1.0') r6, JSON_CONTAINS('"a"', '"a"') r7, JSON_CONTAINS('{"a":1}', '1', '$.z') r8, JSON_CONTAINS(NULL, '1') r9, JSON_CONTAINS('1', NULL) r10;
SELECT JSON_CONTAINS('[{"a":1,"b":2}]', '{"a":1}') r1, JSON_CONTAINS('{"a":[1,2]}', '{"a":1}') r2, JSON_CONTAINS('[1,[2,3]]', '[2]') r3, JSON_CONTAINS('{"a":{"b":1}}', '{}') r4, JSON_CONTAINS('[]', '[]') r5, JSON_CONTAINS('[1]', '[]') r6, JSON_CONTAINS('1', '[1]') r7, JSON_CONTAINS('true','true') r8, JSON_CONTAINS('null','null') r9, JSON_CONTAINS('1e0','1') r10;
SELECT JSON_CONTAINS('[1]', '[');
SHOW WARNINGS;
SELECT JSON_CONTAINS('[1]', '1', '$[*]');
SHOW WARNINGS;
SELECT JSON_CONTAINS('[1]', '1', 'x');
SHOW WARNINGS;
SELECT JSON_CONTAINS_PATH('{"a":1,"b":2}', 'one', '$.a', '$.z') r1, JSON_CONTAINS_PATH('{"a":1,"b":2}', 'all', '$.a', '$.z') r2, JSON_CONTAINS_PATH('{"a":1}', 'ALL', '$.a') r3, JSON_CONTAINS_PATH('{"a":[1]}', 'one', '$.a[*]') r4, JSON_CONTAINS_PATH('{"a":[]}', 'one', '$.a[*]') r5, JSON_CONTAINS_PATH(NULL, 'one', '$') r6, JSON_CONTAINS_PATH('{}', NULL, '$') r7, JSON_CONTAINS_PATH('{}', 'one', NULL) r8;
SELECT JSON_CONTAINS_PATH('{"a":1}', 'all', '$**.a', '$.*') r1, JSON_CONTAINS_PATH('{"a":1}', 'one', '$.z', '$**.a') r2;
SELECT JSON_CONTAINS_PATH('{}', 'some', '$');
SHOW WARNINGS;
SELECT JSON_CONTAINS_PATH('{}', 'one', '$', 'x');
SHOW WARNINGS;

-- JSON_SEARCH: LIKE patterns over strings and numbers; paths print keys unquoted.
SELECT JSON_SEARCH('{"a":"abc","b":["abc","x"]}', 'one', 'abc') r1, JSON_SEARCH('{"a":"abc","b":["abc","x"]}', 'all', 'abc') r2, JSON_SEARCH('{"a":"abc"}', 'one', 'a%') r3, JSON_SEARCH('{"a":"abc"}', 'one', 'zz') r4, JSON_SEARCH('["a_c","abc"]', 'all', 'a\\_c') r5, JSON_SEARCH('["a|c","abc"]', 'all', 'a|_c', '|') r6, JSON_SEARCH('{"a":"x","b":{"c":"x"}}', 'all', 'x', NULL, '$.b') r7;
SELECT JSON_SEARCH('[1, "1"]', 'all', 1) r1, JSON_SEARCH('{"a":"ABC"}', 'one', 'abc') r2, JSON_SEARCH(NULL, 'one', 'a') r3, JSON_SEARCH('[]', 'one', NULL) r4, JSON_SEARCH('["a"]', NULL, 'a') r5, JSON_SEARCH('{"a b":"x"}', 'one', 'x') r6, JSON_SEARCH('[{"k":"x"}]', 'all', 'x', NULL, '$[*]') r7;
SELECT JSON_SEARCH('["a"]', 'some', 'a');
SHOW WARNINGS;
SELECT JSON_SEARCH('["a"]', 'one', 'a', 'xy');

-- JSON_COMPACT, JSON_LOOSE; the other results here are JSON that JSON_ARRAY embeds as
-- is, JSON_CONTAINS's and JSON_CONTAINS_PATH's as booleans. (Not here: MariaDB embeds
-- JSON_COMPACT's and JSON_LOOSE's argument as written, not their result.)
SELECT JSON_COMPACT('{ "a" : 1, "b":[1, 2 ,{"c" : "x y"}]}') r1, JSON_LOOSE('{ "a" : 1, "b":[1, 2 ,{"c" : "x y"}]}') r2, JSON_COMPACT(NULL);
SELECT JSON_COMPACT('[');
SHOW WARNINGS;
SELECT JSON_ARRAY(JSON_CONTAINS('[1]','1'), JSON_CONTAINS_PATH('[1]','one','$'), JSON_SEARCH('["a"]','one','a'), JSON_SET('[1]','$[0]',2), JSON_MERGE_PATCH('{}', '{}'));

-- On a table: UPDATE through JSON_SET keeps the column valid JSON.
CREATE TABLE jm (id INT PRIMARY KEY, doc JSON);
INSERT INTO jm VALUES (1, '{"n": 1, "tags": ["a"]}'), (2, '[1, 2]'), (3, NULL);
UPDATE jm SET doc = JSON_SET(doc, '$.n', id * 10) WHERE id = 1;
UPDATE jm SET doc = JSON_ARRAY_APPEND(doc, '$', id) WHERE id = 2;
SELECT id, doc, JSON_CONTAINS(doc, '1'), JSON_SEARCH(doc, 'one', 'a') FROM jm ORDER BY id;
SELECT id FROM jm WHERE JSON_CONTAINS_PATH(doc, 'one', '$.tags') ORDER BY id;
SELECT id, JSON_REMOVE(doc, '$[0]'), JSON_MERGE_PATCH(doc, '{"n": null}') FROM jm ORDER BY id;
DROP TABLE jm;
