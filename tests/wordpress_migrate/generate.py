"""A large WordPress export for the memory and speed line: N posts with M comments each, written as a stream.

    python -m tests.wordpress_migrate.generate OUT.xml [--posts 20000] [--comments 3]

Posts have categories, tags, excerpts, meta and links to each other on the old site; every third
comment answers the one before it. Ids, dates and words vary with the number, so the file is the
same each time it is made.
"""

from __future__ import annotations

import argparse
import datetime
from pathlib import Path

OLD = "https://big.hillside.example"
HEAD = f"""<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/"
	xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:wfw="http://wellformedweb.org/CommentAPI/"
	xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel>
	<title>Big school</title>
	<link>{OLD}</link>
	<wp:wxr_version>1.2</wp:wxr_version>
	<wp:base_site_url>{OLD}</wp:base_site_url>
	<wp:base_blog_url>{OLD}</wp:base_blog_url>
"""
WORDS = ("pupils", "teachers", "science", "music", "assembly", "trip", "reading", "garden", "sports", "choir",
         "history", "maths", "art", "drama", "library", "lunch", "parents", "governors", "week", "term")
AUTHORS = ("head", "deputy", "office", "year6", "year2")
CATEGORIES = ("news", "sports", "music", "trips", "classes")


def cdata(text: str) -> str:
    return "<![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>") + "]]>"


def sentence(number: int, length: int) -> str:
    return " ".join(WORDS[(number * 7 + index * 3) % len(WORDS)] for index in range(length))


def write_wxr(path: Path, posts: int = 20_000, comments_per_post: int = 3) -> Path:
    start = datetime.datetime(2015, 1, 1, 8, 0)
    with open(path, "w", encoding="utf-8") as out:
        out.write(HEAD)
        for index, login in enumerate(AUTHORS, start=1):
            out.write(f"\t<wp:author><wp:author_id>{index}</wp:author_id><wp:author_login>{cdata(login)}</wp:author_login>"
                      f"<wp:author_email>{cdata(login + '@big.example')}</wp:author_email>"
                      f"<wp:author_display_name>{cdata(login.title())}</wp:author_display_name>"
                      f"<wp:author_first_name>{cdata('')}</wp:author_first_name><wp:author_last_name>{cdata('')}"
                      f"</wp:author_last_name></wp:author>\n")
        for index, slug in enumerate(CATEGORIES, start=2):
            out.write(f"\t<wp:category><wp:term_id>{index}</wp:term_id><wp:category_nicename>{cdata(slug)}"
                      f"</wp:category_nicename><wp:category_parent>{cdata('')}</wp:category_parent>"
                      f"<wp:cat_name>{cdata(slug.title())}</wp:cat_name></wp:category>\n")
        comment_id = 1
        for number in range(1, posts + 1):
            post_id = 100 + number
            when = start + datetime.timedelta(hours=number * 3)
            stamp = f"{when:%Y-%m-%d %H:%M:%S}"
            slug = f"news-{number}"
            link = f"{OLD}/{when:%Y/%m}/{slug}/"
            other = f"{OLD}/{when:%Y/%m}/news-{max(1, number - 1)}/"
            body = (f"<p>{sentence(number, 40)}.</p>\n<p>See <a href=\"{other}\">the one before</a> "
                    f"and <strong>{sentence(number + 1, 25)}</strong>.</p>")
            category = CATEGORIES[number % len(CATEGORIES)]
            out.write(f"""	<item>
		<title>{cdata(f"News {number}: {sentence(number, 4)}")}</title>
		<link>{link}</link>
		<dc:creator>{cdata(AUTHORS[number % len(AUTHORS)])}</dc:creator>
		<guid isPermaLink="false">{OLD}/?p={post_id}</guid>
		<content:encoded>{cdata(body)}</content:encoded>
		<excerpt:encoded>{cdata(sentence(number, 12))}</excerpt:encoded>
		<wp:post_id>{post_id}</wp:post_id>
		<wp:post_date>{cdata(stamp)}</wp:post_date>
		<wp:post_date_gmt>{cdata(stamp)}</wp:post_date_gmt>
		<wp:post_modified>{cdata(stamp)}</wp:post_modified>
		<wp:post_modified_gmt>{cdata(stamp)}</wp:post_modified_gmt>
		<wp:comment_status>{cdata("open")}</wp:comment_status>
		<wp:ping_status>{cdata("closed")}</wp:ping_status>
		<wp:post_name>{cdata(slug)}</wp:post_name>
		<wp:status>{cdata("publish")}</wp:status>
		<wp:post_parent>0</wp:post_parent>
		<wp:menu_order>0</wp:menu_order>
		<wp:post_type>{cdata("post")}</wp:post_type>
		<wp:post_password>{cdata("")}</wp:post_password>
		<wp:is_sticky>0</wp:is_sticky>
		<category domain="category" nicename="{category}">{cdata(category.title())}</category>
		<category domain="post_tag" nicename="tag-{number % 50}">{cdata(f"Tag {number % 50}")}</category>
""")
            for reply in range(comments_per_post):
                parent = comment_id - 1 if reply and reply % 3 == 2 else 0
                out.write(f"""		<wp:comment>
			<wp:comment_id>{comment_id}</wp:comment_id>
			<wp:comment_author>{cdata(f"Parent {comment_id % 400}")}</wp:comment_author>
			<wp:comment_author_email>{cdata(f"parent{comment_id % 400}@mail.example")}</wp:comment_author_email>
			<wp:comment_author_url></wp:comment_author_url>
			<wp:comment_author_IP>{cdata("203.0.113.5")}</wp:comment_author_IP>
			<wp:comment_date>{cdata(stamp)}</wp:comment_date>
			<wp:comment_date_gmt>{cdata(stamp)}</wp:comment_date_gmt>
			<wp:comment_content>{cdata(sentence(comment_id, 15))}</wp:comment_content>
			<wp:comment_approved>{cdata("1" if comment_id % 5 else "0")}</wp:comment_approved>
			<wp:comment_type>{cdata("comment")}</wp:comment_type>
			<wp:comment_parent>{parent}</wp:comment_parent>
			<wp:comment_user_id>0</wp:comment_user_id>
		</wp:comment>
""")
                comment_id += 1
            out.write("\t</item>\n")
        out.write("</channel>\n</rss>\n")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--posts", type=int, default=20_000)
    parser.add_argument("--comments", type=int, default=3)
    arguments = parser.parse_args()
    write_wxr(arguments.out, arguments.posts, arguments.comments)


if __name__ == "__main__":
    main()
