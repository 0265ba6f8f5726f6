"""The reader of WXR 1.0, 1.1 and 1.2 (the namespaces differ by version), and the PHP values of meta."""

from __future__ import annotations

import pytest

from host.wxr import php_serialize, php_unserialize
from plugins.wordpress_migrate.reader import WxrReader

from .helpers import SITE_FILE


@pytest.mark.parametrize("version", ["1.0", "1.1", "1.2"])
def test_every_wxr_version_is_read(tmp_path, version):
    path = tmp_path / "export.xml"
    path.write_text(SITE_FILE.read_text(encoding="utf-8").replace("/export/1.2/", f"/export/{version}/")
                    .replace("<wp:wxr_version>1.2", f"<wp:wxr_version>{version}"), encoding="utf-8")
    reader = WxrReader(path)
    records = list(reader)
    items = {record.post_id: record for kind, record in records if kind == "item"}
    assert reader.channel.wxr_version == version and reader.channel.base_site_url == "https://old.hillside.example"
    assert len(items) == 36 and len([kind for kind, _ in records if kind == "author"]) == 4
    welcome = items[20]
    assert welcome.excerpt == "The spring term starts on Monday 6 January." and welcome.is_sticky
    assert [comment.approved for comment in welcome.comments] == ["1", "1", "1", "0", "spam", "trash"]
    assert welcome.meta_value("_thumbnail_id") == "40" and welcome.meta_values("_edit_last") == ["1"]
    assert items[28].content.endswith("<pre>if (a[b[0]]> 1) {}</pre>")  # the split CDATA joined again
    assert items[70].meta_values("_EventOrganizerID") == ["72", "73"]


def test_php_values_of_meta_are_decoded_and_bounded():
    mail = next(value for key, value in
                next(record for kind, record in WxrReader(SITE_FILE) if kind == "item" and record.post_id == 60).meta
                if key == "_mail")
    decoded = php_unserialize(mail)
    assert decoded["recipient"] == "[_site_admin_email]" and decoded["use_html"] is False
    assert php_serialize(decoded) == mail
    assert php_unserialize('a:2:{i:0;s:2:"é";i:1;d:0.5;}') == ["é", 0.5]
    for hostile in ('O:8:"stdClass":0:{}', 'a:1:{i:0;r:1;}', 's:5:"abc";', "a:99999999:{}",
                    "a:1:{" * 40 + "i:0;N;" + "}" * 40, 'i:1;junk'):
        with pytest.raises(ValueError):
            php_unserialize(hostile)
