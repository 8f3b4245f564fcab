"""moto's DynamoDB emulation as the testkit runs it (see moto.rs).

Usage: python moto_server.py PORT REGION TABLE [ACCESS_KEY_ID SECRET_ACCESS_KEY]

- The table is created before the first request is served, with baton's key schema
  (pk and sk, both strings): moto keeps nothing across a restart, so every start creates it.
- Requests are served one at a time. moto runs each request in a thread of its own and does not
  serialise a conditional write's check with its write, so two contenders could both pass the
  same condition; DynamoDB applies each conditional write atomically, and so does this server.
- A transaction is rolled back from copies of the items it touches, not from a copy of the
  whole table as moto makes before every transaction (which costs time in proportion to the
  table: 50 ms at 900 items, enough to make a test's 300 acquisitions outlast their TTL). The
  outcome is the same, all or nothing, since requests are served one at a time.
- A write naming the lease written in the file `lose-answer` (in the working directory) is
  applied, then answered only after LOST_ANSWER_DELAY, past the client's timeout: the answer is
  lost, as when a connection breaks after the server applied the write. The file is removed.
- With an access key, moto checks every request's signature against that key alone (an IAM user
  allowed every DynamoDB action), so that wrong credentials are refused as DynamoDB refuses
  them. Without one, moto accepts any credentials.
"""

import copy
import io
import json
import os
import signal
import sys
import threading
import time

port, region, table = int(sys.argv[1]), sys.argv[2], sys.argv[3]
access_key = sys.argv[4:6]
if access_key:
    # Read by moto's settings when they are imported: enforce authentication from the start.
    os.environ["INITIAL_NO_AUTH_ACTION_COUNT"] = "0"

from moto.core import DEFAULT_ACCOUNT_ID  # noqa: E402
import moto.dynamodb.models as dynamodb_models  # noqa: E402
from moto.dynamodb.models import DynamoDBBackend, dynamodb_backends  # noqa: E402
from moto.dynamodb.models.dynamo_type import DynamoType  # noqa: E402
from moto.dynamodb.models.table import Table  # noqa: E402
from moto.iam.models import iam_backends  # noqa: E402
from moto.moto_server.werkzeug_app import (  # noqa: E402
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from werkzeug.serving import run_simple  # noqa: E402

dynamodb_backends[DEFAULT_ACCOUNT_ID][region].create_table(
    table,
    schema=[
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ],
    throughput=None,
    attr=[
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "sk", "AttributeType": "S"},
    ],
    global_indexes=None,
    indexes=None,
    streams=None,
    billing_mode="PAY_PER_REQUEST",
    sse_specification=None,
    tags=[],
    deletion_protection_enabled=False,
    warm_throughput=None,
)

if access_key:
    iam = iam_backends[DEFAULT_ACCOUNT_ID]["aws"]
    iam.create_user(region, "baton")
    iam.put_user_policy(
        "baton",
        "dynamodb",
        json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [{"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*"}],
            }
        ),
    )
    key = iam.create_access_key("baton")
    del iam.access_keys[key.physical_resource_id]
    key.access_key_id, key.secret_access_key = access_key
    iam.access_keys[key.physical_resource_id] = key

LOST_ANSWER_DELAY = 3.0
WRITES = ("DynamoDB_20120810.TransactWriteItems", "DynamoDB_20120810.UpdateItem")



class TablesUncopied:
    """The `copy` module as moto's DynamoDB backend sees it: a whole table is not copied."""

    @staticmethod
    def deepcopy(value, memo=None):
        return value if isinstance(value, Table) else copy.deepcopy(value, memo)


dynamodb_models.copy = TablesUncopied
transact_as_moto_does = DynamoDBBackend.transact_write_items


def touched_items(backend, transact_items):
    """(table, hash key, range key, copy of the item or None) for each item of a transaction."""
    touched = []
    for entry in transact_items:
        operation = next(iter(entry.values()), {})
        table = backend.tables.get(operation.get("TableName"))
        attributes = operation.get("Key") or operation.get("Item") or {}
        if table is None or not table.has_range_key:
            continue
        try:
            hash_key = DynamoType(attributes[table.hash_key_attr])
            range_key = DynamoType(attributes[table.range_key_attr])
        except KeyError:
            continue  # moto refuses the transaction before it writes anything
        item = table.get_item(hash_key, range_key)
        touched.append((table, hash_key, range_key, copy.deepcopy(item)))
    return touched


def transact_write_items(self, transact_items):
    touched = touched_items(self, transact_items)
    try:
        return transact_as_moto_does(self, transact_items)
    except Exception:
        for table, hash_key, range_key, item in reversed(touched):
            if item is None:
                table.items[hash_key].pop(range_key, None)
            else:
                table.items[hash_key][range_key] = item
        raise


DynamoDBBackend.transact_write_items = transact_write_items

app = DomainDispatcherApplication(create_backend_app)
one_at_a_time = threading.Lock()


def answer_to_lose(environ, body):
    """Whether this request is the write whose answer is to be lost (and forget it if so)."""
    if environ.get("HTTP_X_AMZ_TARGET") not in WRITES or not os.path.exists("lose-answer"):
        return False
    with open("lose-answer") as marker:
        lease = marker.read().strip()
    if json.dumps(lease) not in body.decode("utf-8", "replace"):
        return False
    os.remove("lose-answer")
    return True


def serialised(environ, start_response):
    body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
    environ["wsgi.input"] = io.BytesIO(body)
    with one_at_a_time:
        lose = answer_to_lose(environ, body)
        response = list(app(environ, start_response))
    if lose:
        time.sleep(LOST_ANSWER_DELAY)
    return response


signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
run_simple(
    "127.0.0.1", port, serialised, threaded=True, request_handler=MotoRequestHandler
)
