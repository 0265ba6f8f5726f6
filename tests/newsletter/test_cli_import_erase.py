"""`sitehost newsletter import` and `erase`: pending subscribers, a hashed suppression, nothing resubscribed."""

from __future__ import annotations

from host.testing import TEST_SITE_ADDRESS, assert_collection

from .cli_helpers import run, write_config
from .helpers import API, standard_site

CSV = ("Email,First name,Last name\n"
       "amira.hassan@example.org,Amira,Hassan\n"
       "Tom.Price@Example.org,Tom,=HYPERLINK(\"x\")\n"
       "not-an-address,Nobody,\n"
       "amira.hassan@EXAMPLE.org,Amira,Again\n")


def test_import_adds_pending_and_erase_keeps_only_a_suppression(make_app, tmp_path):
    site = standard_site(make_app(plugins=["newsletter"]))
    config = write_config(site.app, tmp_path)
    families = tmp_path / "families.csv"
    families.write_text(CSV, encoding="utf-8")
    result = run(config, "import", str(families), "--list", "Year 7 parents")
    assert result.exit_code == 0, result.output
    assert ("Year 7 parents: 2 added as pending, 1 already on the list, 0 erased before (skipped), "
            "0 unsubscribed before (skipped), 1 invalid; 0 confirmation mail(s) queued") in result.output
    assert "skipped line 4: 'not-an-address'" in result.output
    people = assert_collection(site.admin.get(API + "/subscribers"), total=2)
    assert [person["email"] for person in people] == ["amira.hassan@example.org", "Tom.Price@example.org"]
    assert people[0]["fields"] == {"FIRSTNAME": "Amira", "LASTNAME": "Hassan"}
    subscription = people[0]["subscriptions"][0]
    assert (subscription["list"], subscription["status"], subscription["source"], subscription["confirmed"]) == (
        site.lists["Year 7 parents"], "pending", "import: families.csv", None)
    assert_collection(site.admin.get(API + "/subscribers", {"status": "confirmed"}), total=0)
    assert site.admin.get(f"{API}/lists/{site.lists['Year 7 parents']}").json["subscribers"]["pending"] == 2

    erased = run(config, "erase", "AMIRA.hassan@example.org")
    assert erased.exit_code == 0 and "erased AMIRA.hassan@example.org; a hashed suppression entry remains" in erased.output
    people = assert_collection(site.admin.get(API + "/subscribers"), total=1)
    assert people[0]["email"] == "Tom.Price@example.org"
    assert "amira" not in site.admin.get(API + "/subscribers", {"search": "amira"}).text.lower()

    again = run(config, "import", str(families), "--list", "Year 7 parents")
    assert "0 added as pending, 1 already on the list, 2 erased before (skipped)" in again.output
    assert_collection(site.admin.get(API + "/subscribers"), total=1)

    unknown = run(config, "erase", "never@example.org")
    assert "no subscriber never@example.org; a hashed suppression entry was recorded" in unknown.output
    (tmp_path / "later.csv").write_text("email\nnever@example.org\n")
    assert "0 added as pending, 0 already on the list, 1 erased before" in run(
        config, "import", str(tmp_path / "later.csv"), "--list", "Whole school").output


def test_import_refuses_what_it_cannot_use(make_app, tmp_path):
    site = standard_site(make_app(plugins=["newsletter"]))
    config = write_config(site.app, tmp_path)
    (tmp_path / "no-email.csv").write_text("name\nAmira\n")
    result = run(config, "import", str(tmp_path / "no-email.csv"), "--list", "Whole school")
    assert result.exit_code == 1 and "needs a header line with an `email` column" in result.output
    (tmp_path / "ok.csv").write_text("email\nparent@example.org\n")
    result = run(config, "import", str(tmp_path / "ok.csv"), "--list", "Governors")
    assert result.exit_code == 1
    assert "no list named 'Governors' (lists: Whole school, Year 7 parents)" in result.output
    (tmp_path / "latin1.csv").write_bytes("email,name\nz@example.org,Zo\xeb\n".encode("latin-1"))
    result = run(config, "import", str(tmp_path / "latin1.csv"), "--list", "Whole school")
    assert result.exit_code == 1 and "is not UTF-8 text" in result.output
    assert_collection(site.admin.get(API + "/subscribers"), total=0)
    # by id as well as by name
    assert "1 added as pending" in run(config, "import", str(tmp_path / "ok.csv"), "--list",
                                       str(site.lists["Whole school"])).output


def test_unsubscribe_form_and_an_import_that_must_not_undo_it(make_app, tmp_path):
    site = standard_site(make_app(plugins=["newsletter"]))
    config = write_config(site.app, tmp_path)
    (tmp_path / "one.csv").write_text("email\nparent@example.org\n")
    run(config, "import", str(tmp_path / "one.csv"), "--list", "Whole school")
    from .helpers import follow, link_in, local, queued_mails, result_of
    assert result_of(site.sign_up("leave", EMAIL="PARENT@example.org")) == (
        "unsubscribe_requested", "Thank you. If this address is on our list, we have sent it an email: follow its "
                                 "link to unsubscribe.")
    assert site.subscribers()[0]["subscriptions"][0]["status"] == "pending"  # only the mailed link acts
    follow(site.app.client, local(link_in(queued_mails(site.app)[-1], "/newsletter/unsubscribe")))
    assert site.subscribers()[0]["subscriptions"][0]["status"] == "unsubscribed"
    result = run(config, "import", str(tmp_path / "one.csv"), "--list", "Whole school")
    assert "0 added as pending, 0 already on the list, 0 erased before (skipped), 1 unsubscribed before" in result.output
    assert site.subscribers()[0]["subscriptions"][0]["status"] == "unsubscribed"


def test_import_sends_confirmations_only_when_asked(make_app, tmp_path):
    from .helpers import follow, link_in, local, queued_mails

    site = standard_site(make_app(plugins=["newsletter"]))
    (tmp_path / "two.csv").write_text("email,fname\nann@example.org,Ann\nbob@example.org,Bob\n")
    quiet = run(write_config(site.app, tmp_path), "import", str(tmp_path / "two.csv"), "--list", "Whole school")
    assert "2 added as pending" in quiet.output and queued_mails(site.app) == []
    (tmp_path / "three.csv").write_text("email,fname\nann@example.org,Ann\ncat@example.org,Cat\n")
    no_url = run(write_config(site.app, tmp_path, site_url=""), "import", str(tmp_path / "three.csv"),
                 "--list", "Whole school", "--send-confirmations", "--site-url", "school.example")
    assert no_url.exit_code == 1 and "links in mails need the site's address" in no_url.output
    assert_collection(site.admin.get(API + "/subscribers"), total=2)  # nothing imported either
    loud = run(write_config(site.app, tmp_path), "import", str(tmp_path / "three.csv"), "--list", "Whole school",
               "--send-confirmations")
    assert "1 added as pending, 1 already on the list" in loud.output and "1 confirmation mail(s) queued" in loud.output
    [mail] = queued_mails(site.app)
    assert mail["To"] == "cat@example.org" and mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    link = link_in(mail, "/newsletter/confirm?token=")
    assert link.startswith("https://school.example/newsletter/confirm?token=")
    assert "Subscription confirmed" in follow(site.app.client, local(link)).text
    cat = site.admin.get(API + "/subscribers", {"search": "cat@"}).json[0]
    assert cat["subscriptions"][0]["status"] == "confirmed" and cat["fields"] == {"FNAME": "Cat"}
    # without [site] url or --site-url, the links are on the address the site keeps
    (tmp_path / "four.csv").write_text("email,fname\ndan@example.org,Dan\n")
    run(write_config(site.app, tmp_path, site_url=""), "import", str(tmp_path / "four.csv"), "--list", "Whole school",
        "--send-confirmations")
    assert link_in(queued_mails(site.app)[-1], "/newsletter/confirm?token=").startswith(
        f"{TEST_SITE_ADDRESS}/newsletter/confirm?token=")
