package dev.voicegateway.app.helper;

import android.content.ContentProvider;
import android.content.ContentValues;
import android.database.Cursor;
import android.net.Uri;
import android.os.Binder;
import android.os.Bundle;
import dev.voicegateway.core.helper.PeerPolicy;

/**
 * Where the audio helper announces itself (HelperChannel): exported, because the helper reaches it
 * from outside the app, but only to holders of INTERACT_ACROSS_USERS_FULL (the manifest), a
 * permission the shell has and no normal app can get, as Shizuku's provider is declared. call()
 * lets nobody but the shell's uid further (Binder.getCallingUid() is the kernel's word); every other
 * entry point of a provider serves nothing. Providers are made before Application.onCreate, so the
 * state lives in {@link HelperPorts#directory()}, made on first use.
 */
public final class HelperProvider extends ContentProvider {
    @Override
    public boolean onCreate() {
        return true;
    }

    @Override
    public Bundle call(String method, String arg, Bundle extras) {
        int uid = Binder.getCallingUid();
        PeerPolicy.requireShell(uid);
        Bundle reply = new Bundle();
        HelperPorts.directory().call(uid, method, extras == null ? null : new BinderChannel.BundleExtras(extras), new BinderChannel.BundleExtras(reply));
        return reply;
    }

    @Override
    public Cursor query(Uri uri, String[] projection, String selection, String[] selectionArgs, String sortOrder) {
        return null;
    }

    @Override
    public String getType(Uri uri) {
        return null;
    }

    @Override
    public Uri insert(Uri uri, ContentValues values) {
        return null;
    }

    @Override
    public int delete(Uri uri, String selection, String[] selectionArgs) {
        return 0;
    }

    @Override
    public int update(Uri uri, ContentValues values, String selection, String[] selectionArgs) {
        return 0;
    }
}
